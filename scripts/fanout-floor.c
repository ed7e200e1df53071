/*
 * The smallest server that passes the real-time benchmark: it holds every POST as a chunked
 * stream and, when a PUT arrives, writes one pre-framed invalidation to every held stream with
 * one send() each. It parses nothing, stores nothing and keeps no state but the held fds, so its
 * fan-out time is what the kernel alone costs on this machine: the floor under any server.
 *
 * With a third argument `uring` the sends are queued on an io_uring and submitted in batches
 * of up to 4096 per system call instead, to measure what batching the system calls saves.
 *
 * Build: gcc -O2 -Wall -o /tmp/fanout-floor scripts/fanout-floor.c
 * Run:   fanout-floor PORT WORKERS [uring]   (127.0.0.1 only; scripts/bench-fanout-floor drives it)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FDS 20000

static const char stream_head[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
static const char publish_answer[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
static const char message[] = "2b\r\n{\"latestTemplateVersionNumber\": \"2\"}\n\r\n";

static int held[MAX_FDS];
static int held_count;

static int listener(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) || listen(fd, 4096)) {
        perror("listen");
        exit(1);
    }
    return fd;
}

static int use_uring;

/* A minimal io_uring (no liburing): one submission and one completion ring, mapped once. */
#define RING_ENTRIES 4096
static int ring_fd = -1;
static unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
static struct io_uring_sqe *sqes;

static void ring_setup(void) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    ring_fd = (int)syscall(__NR_io_uring_setup, RING_ENTRIES, &params);
    if (ring_fd < 0) {
        perror("io_uring_setup");
        exit(1);
    }
    size_t sq_size = params.sq_off.array + params.sq_entries * sizeof(unsigned);
    size_t cq_size = params.cq_off.cqes + params.cq_entries * sizeof(struct io_uring_cqe);
    char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring_fd, IORING_OFF_SQ_RING);
    char *cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring_fd, IORING_OFF_CQ_RING);
    sqes = mmap(NULL, params.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                ring_fd, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    sq_tail = (unsigned *)(sq + params.sq_off.tail);
    sq_mask = (unsigned *)(sq + params.sq_off.ring_mask);
    sq_array = (unsigned *)(sq + params.sq_off.array);
    cq_head = (unsigned *)(cq + params.cq_off.head);
    cq_tail = (unsigned *)(cq + params.cq_off.tail);
    cq_mask = (unsigned *)(cq + params.cq_off.ring_mask);
}

static void fan_out_uring(void) {
    for (int start = 0; start < held_count; start += RING_ENTRIES) {
        int batch = held_count - start < RING_ENTRIES ? held_count - start : RING_ENTRIES;
        unsigned tail = *sq_tail;
        for (int i = 0; i < batch; i++) {
            unsigned index = (tail + i) & *sq_mask;
            struct io_uring_sqe *sqe = &sqes[index];
            memset(sqe, 0, sizeof *sqe);
            sqe->opcode = IORING_OP_SEND;
            sqe->fd = held[start + i];
            sqe->addr = (unsigned long)message;
            sqe->len = sizeof message - 1;
            sqe->msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT;
            sq_array[index] = index;
        }
        __atomic_store_n(sq_tail, tail + batch, __ATOMIC_RELEASE);
        syscall(__NR_io_uring_enter, ring_fd, batch, batch, IORING_ENTER_GETEVENTS, NULL, 0);
        /* The results are not needed: a failed send is a client that left. */
        __atomic_store_n(cq_head, __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
    }
}

static void fan_out(void) {
    if (use_uring) {
        fan_out_uring();
        return;
    }
    for (int i = 0; i < held_count; i++)
        send(held[i], message, sizeof message - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Reads what the client sent; answers a complete request head. Returns 0 to close. */
static int serve(int fd, int *publish_pipes, int workers) {
    char buffer[4096];
    ssize_t n = recv(fd, buffer, sizeof buffer - 1, 0);
    if (n <= 0) return n < 0 && errno == EAGAIN;
    buffer[n] = 0;
    if (!strstr(buffer, "\r\n\r\n")) return 1; /* the benchmark's requests come in one read */
    if (strncmp(buffer, "PUT ", 4) == 0) {
        send(fd, publish_answer, sizeof publish_answer - 1, MSG_NOSIGNAL);
        for (int w = 0; w < workers; w++) (void)!write(publish_pipes[w], "p", 1);
        return 1;
    }
    send(fd, stream_head, sizeof stream_head - 1, MSG_NOSIGNAL);
    if (held_count < MAX_FDS) held[held_count++] = fd;
    return 1;
}

static void forget(int fd) {
    for (int i = 0; i < held_count; i++)
        if (held[i] == fd) {
            held[i] = held[--held_count];
            break;
        }
    close(fd);
}

static void worker(int port, int own_pipe, int *publish_pipes, int workers) {
    if (use_uring) ring_setup();
    int listen_fd = listener(port), ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = listen_fd};
    epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd, &ev);
    ev.data.fd = own_pipe;
    epoll_ctl(ep, EPOLL_CTL_ADD, own_pipe, &ev);
    struct epoll_event events[256];
    for (;;) {
        int ready = epoll_wait(ep, events, 256, -1);
        for (int i = 0; i < ready; i++) {
            int fd = events[i].data.fd;
            if (fd == listen_fd) {
                int client;
                while ((client = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    int one = 1;
                    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event cev = {.events = EPOLLIN | EPOLLRDHUP, .data.fd = client};
                    epoll_ctl(ep, EPOLL_CTL_ADD, client, &cev);
                }
            } else if (fd == own_pipe) {
                char byte;
                (void)!read(own_pipe, &byte, 1);
                fan_out();
            } else if ((events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ||
                       !serve(fd, publish_pipes, workers)) {
                forget(fd);
            }
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "uring") != 0)) {
        fprintf(stderr, "usage: fanout-floor PORT WORKERS [uring]\n");
        return 2;
    }
    int port = atoi(argv[1]), workers = atoi(argv[2]);
    use_uring = argc == 4;
    int read_ends[64], write_ends[64];
    if (workers < 1 || workers > 64) return 2;
    for (int w = 0; w < workers; w++) {
        int p[2];
        if (pipe(p)) return 1;
        read_ends[w] = p[0];
        write_ends[w] = p[1];
    }
    for (int w = 0; w < workers; w++)
        if (fork() == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM); /* workers end with the parent */
            worker(port, read_ends[w], write_ends, workers);
        }
    while (wait(NULL) > 0) {}
    return 0;
}
