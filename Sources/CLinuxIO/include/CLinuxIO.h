#ifndef CLINUXIO_H
#define CLINUXIO_H

#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

/// One readiness event, unpacked from the packed `struct epoll_event` Swift cannot lay out.
typedef struct {
    uint32_t events;
    uint64_t data;
} rcs_event;

enum {
    RCS_EPOLLIN = 0x001,
    RCS_EPOLLOUT = 0x004,
    RCS_EPOLLERR = 0x008,
    RCS_EPOLLHUP = 0x010,
    RCS_EPOLLRDHUP = 0x2000,
};
/// Edge-triggered registration (EPOLLET does not fit a Swift enum constant).
#define RCS_EPOLLET (1u << 31)

int rcs_epoll_create(void);
int rcs_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Waits for events; returns the count, or -1 with errno set (EINTR included).
int rcs_epoll_wait(int epfd, rcs_event *events, int max_events, int timeout_ms);
enum { RCS_EPOLL_ADD = 1, RCS_EPOLL_DEL = 2, RCS_EPOLL_MOD = 3 };

int rcs_eventfd(void);
int rcs_eventfd_signal(int fd);
int rcs_eventfd_drain(int fd);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC. Writes the peer's IPv4/IPv6 address as text.
int rcs_accept(int listen_fd, char *peer, size_t peer_len);
/// A non-blocking TCP listening socket with SO_REUSEADDR and SO_REUSEPORT.
int rcs_listen_tcp(const char *host, int port, int backlog, int *out_errno);
/// A TCP socket with SO_REUSEPORT bound but not listening: reserves a port (0 = any) for a
/// group of worker processes without taking any of the group's connections.
int rcs_bind_reserve_tcp(const char *host, int port, int *out_errno);
/// 1 when something already accepts connections on host:port. SO_REUSEPORT would otherwise let a
/// second server (same user) silently share the port and split its clients.
int rcs_port_accepting(const char *host, int port);
/// recv with MSG_DONTWAIT; -1 with errno on failure.
ssize_t rcs_recv(int fd, void *buf, size_t len);
/// Seconds of CLOCK_MONOTONIC_COARSE (cheap; the event loop's clock).
int64_t rcs_monotonic_seconds(void);
/// Milliseconds of CLOCK_MONOTONIC.
int64_t rcs_monotonic_millis(void);
/// Nanoseconds of CLOCK_MONOTONIC (request latency).
int64_t rcs_monotonic_nanos(void);
/// The port a socket is bound to, or -1.
int rcs_local_port(int fd);
/// send with MSG_NOSIGNAL | MSG_DONTWAIT.
ssize_t rcs_send(int fd, const void *buf, size_t len);
/// Sends two buffers in one call (a response head and a shared body, without copying the body).
ssize_t rcs_send2(int fd, const void *first, size_t first_len, const void *second, size_t second_len);
/// A blocking TCP connection to a loopback or numeric address (tests and tools).
int rcs_connect_tcp(const char *host, int port);

/// Datagram sockets in the abstract Unix namespace: workers tell each other of publishes.
int rcs_dgram_bind(const char *name);
int rcs_dgram_send(int fd, const char *name, const void *buf, size_t len);

/// Raises the soft RLIMIT_NOFILE to the hard limit; returns the new soft limit.
long rcs_raise_nofile_limit(void);

/// Anonymous shared memory for the worker group (memfd), and atomics over it.
int rcs_memfd(const char *name, size_t size);
void *rcs_map_shared(int fd, size_t size);
int64_t rcs_atomic_load(int64_t *p);
int64_t rcs_atomic_add(int64_t *p, int64_t delta);
void rcs_atomic_store(int64_t *p, int64_t value);
/// Raises *p to value if it is lower.
void rcs_atomic_raise(int64_t *p, int64_t value);
/// Adds one to *p if that keeps it at or below limit; returns 1 on success.
int rcs_atomic_increment_below(int64_t *p, int64_t limit);
/// Adds one to the counter at *p and wakes every thread, of any process sharing the memory,
/// waiting in `rcs_counter_wait` for it to move; returns the new value.
int64_t rcs_counter_raise(int64_t *p);
/// Sleeps until the counter at *p no longer holds `seen`, a raise wakes it, or `timeout_ms`
/// passed (a futex on the counter's low half: it returns at once if the counter moved).
void rcs_counter_wait(int64_t *p, int64_t seen, int timeout_ms);
/// Wakes the threads waiting on *p without moving it (a thread that must stop).
void rcs_counter_wake(int64_t *p);

/// Raises the calling thread's nice value by `increment` (threads it creates inherit it); 0 on
/// success.
int rcs_raise_thread_nice(int increment);

/// Names the calling thread as `top -H`, `ps -L` and `perf` show it (its first 15 bytes):
/// Foundation's `Thread.name` does not reach the kernel on Linux.
void rcs_name_this_thread(const char *name);

/// Ask the kernel to send SIGTERM to this process when its parent dies.
int rcs_die_with_parent(void);
/// Clear the FD_CLOEXEC flag so a spawned child inherits fd.
int rcs_inherit_fd(int fd);

/// A non-blocking, close-on-exec signalfd for the (already blocked) signals in *mask.
int rcs_signalfd(const sigset_t *mask);
/// The next signal number read from a signalfd, or 0 when none is pending.
int rcs_signalfd_next(int fd);

/// pipe2 with O_CLOEXEC on both ends.
int rcs_pipe_cloexec(int fds[2]);
/// Adds to `actions`: close every descriptor from `lowest` up in the child (glibc's
/// posix_spawn_file_actions_addclosefrom_np, which Swift cannot see without _GNU_SOURCE).
int rcs_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
