#define _GNU_SOURCE
#include "CLinuxIO.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int rcs_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int rcs_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    int kop = op == RCS_EPOLL_ADD ? EPOLL_CTL_ADD : op == RCS_EPOLL_DEL ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
    return epoll_ctl(epfd, kop, fd, &ev);
}

int rcs_epoll_wait(int epfd, rcs_event *events, int max_events, int timeout_ms) {
    struct epoll_event raw[512];
    if (max_events > 512) max_events = 512;
    int n = epoll_wait(epfd, raw, max_events, timeout_ms);
    for (int i = 0; i < n; i++) {
        events[i].events = raw[i].events;
        events[i].data = raw[i].data.u64;
    }
    return n;
}

int rcs_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int rcs_eventfd_signal(int fd) {
    uint64_t one = 1;
    return (int)write(fd, &one, sizeof one);
}

int rcs_eventfd_drain(int fd) {
    uint64_t value;
    return (int)read(fd, &value, sizeof value);
}

int rcs_accept(int listen_fd, char *peer, size_t peer_len) {
    struct sockaddr_storage addr;
    socklen_t len = sizeof addr;
    int fd = accept4(listen_fd, (struct sockaddr *)&addr, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return fd;
    if (peer && peer_len > 0) {
        peer[0] = 0;
        if (addr.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&addr)->sin_addr, peer, (socklen_t)peer_len);
        } else if (addr.ss_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&addr)->sin6_addr, peer, (socklen_t)peer_len);
        }
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int rcs_bound_socket(const char *host, int port, int *out_errno) {
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    int rc = getaddrinfo(host, service, &hints, &res);
    if (rc != 0 || res == NULL) { *out_errno = EADDRNOTAVAIL; return -1; }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) { *out_errno = errno; freeaddrinfo(res); return -1; }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
        *out_errno = errno;
        close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    return fd;
}

int rcs_port_accepting(const char *host, int port) {
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &res) != 0 || res == NULL) return 0;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int accepting = 0;
    if (fd >= 0) {
        struct timeval limit = { .tv_sec = 1, .tv_usec = 0 };
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
        accepting = connect(fd, res->ai_addr, res->ai_addrlen) == 0;
        close(fd);
    }
    freeaddrinfo(res);
    return accepting;
}

int rcs_bind_reserve_tcp(const char *host, int port, int *out_errno) {
    return rcs_bound_socket(host, port, out_errno);
}

ssize_t rcs_recv(int fd, void *buf, size_t len) { return recv(fd, buf, len, MSG_DONTWAIT); }

int64_t rcs_monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec;
}

int64_t rcs_monotonic_millis(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t rcs_monotonic_nanos(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int rcs_listen_tcp(const char *host, int port, int backlog, int *out_errno) {
    int fd = rcs_bound_socket(host, port, out_errno);
    if (fd < 0) return -1;
    if (listen(fd, backlog) != 0) {
        *out_errno = errno;
        close(fd);
        return -1;
    }
    return fd;
}

int rcs_local_port(int fd) {
    struct sockaddr_storage addr;
    socklen_t len = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &len) != 0) return -1;
    if (addr.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&addr)->sin_port);
    if (addr.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&addr)->sin6_port);
    return -1;
}

ssize_t rcs_send(int fd, const void *buf, size_t len) {
    return send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

ssize_t rcs_send2(int fd, const void *first, size_t first_len, const void *second, size_t second_len) {
    /* send(2) when there is one part: no msghdr or iovec to import (stream chunks, heads). */
    if (second_len == 0) return send(fd, first, first_len, MSG_NOSIGNAL | MSG_DONTWAIT);
    struct iovec parts[2] = {
        { .iov_base = (void *)first, .iov_len = first_len },
        { .iov_base = (void *)second, .iov_len = second_len },
    };
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = parts;
    message.msg_iovlen = 2;
    return sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int rcs_connect_tcp(const char *host, int port) {
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) { errno = EINVAL; return -1; }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static socklen_t abstract_address(const char *name, struct sockaddr_un *addr) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    size_t n = strlen(name);
    if (n > sizeof addr->sun_path - 2) n = sizeof addr->sun_path - 2;
    memcpy(addr->sun_path + 1, name, n);  // leading NUL: abstract namespace, no file to clean up
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

int rcs_dgram_bind(const char *name) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_un addr;
    socklen_t len = abstract_address(name, &addr);
    if (bind(fd, (struct sockaddr *)&addr, len) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int rcs_dgram_send(int fd, const char *name, const void *buf, size_t len) {
    struct sockaddr_un addr;
    socklen_t alen = abstract_address(name, &addr);
    return (int)sendto(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&addr, alen);
}

long rcs_raise_nofile_limit(void) {
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return -1;
    if (lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
        getrlimit(RLIMIT_NOFILE, &lim);
    }
    return (long)lim.rlim_cur;
}

int rcs_memfd(const char *name, size_t size) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)size) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

void *rcs_map_shared(int fd, size_t size) {
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

int64_t rcs_atomic_load(int64_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

int64_t rcs_atomic_add(int64_t *p, int64_t delta) { return __atomic_add_fetch(p, delta, __ATOMIC_SEQ_CST); }

void rcs_atomic_store(int64_t *p, int64_t value) { __atomic_store_n(p, value, __ATOMIC_SEQ_CST); }

void rcs_atomic_raise(int64_t *p, int64_t value) {
    int64_t seen = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (seen < value && !__atomic_compare_exchange_n(p, &seen, value, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
}

/* The 32 bits of a counter that move with every raise, where a futex can wait. */
static uint32_t *counter_low_half(int64_t *p) {
    return (uint32_t *)p + (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 1 : 0);
}

void rcs_counter_wake(int64_t *p) {
    /* Not FUTEX_PRIVATE_FLAG: the waiters may be other processes mapping the same memory. */
    syscall(SYS_futex, counter_low_half(p), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

int64_t rcs_counter_raise(int64_t *p) {
    int64_t raised = __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST);
    rcs_counter_wake(p);
    return raised;
}

void rcs_counter_wait(int64_t *p, int64_t seen, int timeout_ms) {
    struct timespec timeout = {.tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000L};
    /* The kernel compares the word with `seen` before it sleeps: a raise in between is never missed. */
    syscall(SYS_futex, counter_low_half(p), FUTEX_WAIT, (uint32_t)seen, &timeout, NULL, 0);
}

int rcs_atomic_increment_below(int64_t *p, int64_t limit) {
    int64_t current = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (current < limit) {
        if (__atomic_compare_exchange_n(p, &current, current + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return 1;
    }
    return 0;
}

int rcs_raise_thread_nice(int increment) {
    /* PRIO_PROCESS with a thread id: Linux keeps the nice value per thread. */
    id_t thread = (id_t)syscall(SYS_gettid);
    errno = 0;
    int current = getpriority(PRIO_PROCESS, thread);
    if (current == -1 && errno != 0) return -1;
    return setpriority(PRIO_PROCESS, thread, current + increment);
}

void rcs_name_this_thread(const char *name) {
    char shortened[16];
    snprintf(shortened, sizeof shortened, "%s", name);
    prctl(PR_SET_NAME, shortened, 0, 0, 0);
}

int rcs_die_with_parent(void) { return prctl(PR_SET_PDEATHSIG, SIGTERM); }

int rcs_inherit_fd(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
}

int rcs_signalfd(const sigset_t *mask) { return signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC); }

int rcs_signalfd_next(int fd) {
    struct signalfd_siginfo info;
    ssize_t got;
    do {
        got = read(fd, &info, sizeof info);
    } while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof info ? (int)info.ssi_signo : 0;
}

int rcs_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int rcs_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
