// Holds N real-time streams (split over P processes for the per-process fd limit) and records,
// per stream, every template version it was told of. A stream the server ends (its lifetime)
// is reopened at once with the newest version it knows, as the SDKs do. On SIGTERM each
// process prints:
//   held H        streams open with their 200 head
//   reconnects R  streams the server ended and that were reopened
//   latest V K    K streams were last told of version V
//   seen V K      K streams were told of version V
// Before that, each process prints "ready" once all its streams have their 200 head.
// Usage: hold-client PORT PATH FIRST_VERSION CONNS PROCS   (loopback only: 127.0.0.2..17 as sources)
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_VERSION 4096
#define TAIL 48
static const char MARK[] = "\"latestTemplateVersionNumber\": \"";

struct stream {
    int fd, open, headed, latest;
    unsigned char seen[MAX_VERSION / 8];
    char tail[TAIL];
    int tail_len;
};

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

static void scan(struct stream *s, const char *data, int len) {
    char buf[TAIL + 65536];
    memcpy(buf, s->tail, s->tail_len);
    memcpy(buf + s->tail_len, data, len);
    int n = s->tail_len + len;
    if (!s->headed && n >= 12 && memcmp(buf, "HTTP/1.1 200", 12) == 0) s->headed = 1;
    int marklen = (int)strlen(MARK);
    for (int i = 0; i + marklen < n; i++) {
        if (memcmp(buf + i, MARK, marklen) != 0) continue;
        int j = i + marklen, v = 0, digits = 0;
        while (j < n && buf[j] >= '0' && buf[j] <= '9') { v = v * 10 + (buf[j] - '0'); j++; digits++; }
        if (j >= n) break;  // number not complete yet: keep it in the tail
        if (digits && v < MAX_VERSION) s->seen[v / 8] |= (unsigned char)(1 << (v % 8));
        if (digits && v > s->latest) s->latest = v;
        i = j;
    }
    int keep = n < TAIL ? n : TAIL;
    memcpy(s->tail, buf + n - keep, keep);
    s->tail_len = keep;
}

static int open_stream(int ep, struct stream *s, unsigned slot, int source, int port, const char *path) {
    char body[64], request[2048];
    int bodylen = snprintf(body, sizeof body, "{\"lastKnownVersionNumber\": \"%d\"}", s->latest);
    int reqlen = snprintf(request, sizeof request,
        "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
        path, bodylen, body);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { perror("socket"); return -1; }
    struct sockaddr_in src = { .sin_family = AF_INET };
    src.sin_addr.s_addr = htonl(0x7f000002 + (source % 16));
    bind(fd, (struct sockaddr *)&src, sizeof src);
    struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(port) };
    dst.sin_addr.s_addr = htonl(0x7f000001);
    if (connect(fd, (struct sockaddr *)&dst, sizeof dst) != 0 || write(fd, request, reqlen) != reqlen) {
        perror("connect"); close(fd); return -1;
    }
    fcntl(fd, F_SETFL, O_NONBLOCK);
    s->fd = fd;
    s->open = 1;
    s->headed = 0;
    s->tail_len = 0;
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = slot };
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    return 0;
}

static int run(int index, int port, const char *path, int first_version, int conns) {
    struct stream *streams = calloc(conns, sizeof *streams);
    int ep = epoll_create1(0);
    int reconnects = 0;
    for (int i = 0; i < conns; i++) {
        streams[i].latest = first_version;
        if (open_stream(ep, &streams[i], (unsigned)i, index * 7 + i, port, path) != 0) return 1;
    }
    int ready = 0;
    struct epoll_event events[256];
    static char data[65536];
    while (!stop) {
        int n = epoll_wait(ep, events, 256, 200);
        for (int k = 0; k < n; k++) {
            struct stream *s = &streams[events[k].data.u32];
            ssize_t got = read(s->fd, data, sizeof data);
            if (got > 0) { scan(s, data, (int)got); continue; }
            if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            s->open = 0;
            epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
            close(s->fd);
            if (!stop && open_stream(ep, s, events[k].data.u32, index * 7 + (int)events[k].data.u32, port, path) == 0) reconnects++;
        }
        if (!ready) {
            int headed = 0;
            for (int i = 0; i < conns; i++) headed += streams[i].headed;
            if (headed == conns) { ready = 1; printf("ready\n"); fflush(stdout); }
        }
    }
    int held = 0;
    static int counts[MAX_VERSION], latest[MAX_VERSION];
    for (int i = 0; i < conns; i++) {
        if (streams[i].open && streams[i].headed) held++;
        if (streams[i].latest < MAX_VERSION) latest[streams[i].latest]++;
        for (int v = 0; v < MAX_VERSION; v++) if (streams[i].seen[v / 8] & (1 << (v % 8))) counts[v]++;
    }
    printf("held %d\nreconnects %d\n", held, reconnects);
    for (int v = 0; v < MAX_VERSION; v++) if (latest[v]) printf("latest %d %d\n", v, latest[v]);
    for (int v = 0; v < MAX_VERSION; v++) if (counts[v]) printf("seen %d %d\n", v, counts[v]);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: %s PORT PATH FIRST_VERSION CONNS PROCS\n", argv[0]); return 2; }
    int port = atoi(argv[1]), conns = atoi(argv[4]), procs = atoi(argv[5]);
    signal(SIGTERM, on_term);
    pid_t children[64];
    for (int p = 0; p < procs && p < 64; p++) {
        int share = conns / procs + (p < conns % procs ? 1 : 0);
        children[p] = fork();
        if (children[p] == 0) return run(p, port, argv[2], atoi(argv[3]), share);
    }
    while (!stop) pause();
    for (int p = 0; p < procs && p < 64; p++) kill(children[p], SIGTERM);
    while (wait(NULL) > 0) {}
    return 0;
}
