/* net: the network stack on loopback (127.0.0.1 only) -- TCP stream throughput,
 * TCP request/response latency, TCP connection set-up rate, UDP packet rate.
 *
 * Usage: net MODE ITERATIONS PARAM... [CPU_CLIENT CPU_SERVER]   (protocol: common.h)
 *
 * Every mode forks its own server process in set-up: the parent binds a socket
 * to 127.0.0.1 port 0 (the kernel picks a free ephemeral port, read back with
 * getsockname), forks, and the child serves on it; the parent is the client.
 * The server dies with the client (PR_SET_PDEATHSIG) and is reaped at the end;
 * on any failure of the client it is killed (SIGKILL) and reaped. With the two
 * optional CPU numbers the client pins itself to CPU_CLIENT and the server to
 * CPU_SERVER (the same number puts both on one CPU); without them the
 * scheduler places both (what iperf3 and netperf do by default).
 *
 * One op, per mode, and exactly what lies inside the timed region (between the
 * two osm_now_ns() reads; listen, fork, connect and buffer set-up are outside):
 *
 *   tcp-stream LEN WARMUP_MS
 *                        one write() of a LEN-byte buffer (iperf3's default
 *                        length is 131072) on one connected TCP socket with
 *                        default buffer sizes; the server read()s with the
 *                        same length and counts. Set-up (untimed): the client
 *                        streams for WARMUP_MS ms (0: none), tells the server
 *                        on a pipe how many bytes that was, and waits for its
 *                        one-byte ack, sent once it has read them all -- so
 *                        the timed region starts on a connection whose
 *                        receive buffer has grown (tcp_rmem autotuning) with
 *                        empty queues. Timed: all ITERATIONS writes, then
 *                        shutdown(SHUT_WR) and the wait for the server's
 *                        8-byte reply, which it sends only after it has read
 *                        everything up to EOF -- so the figure is bytes
 *                        delivered to the receiving process, not bytes
 *                        queued. The reply carries the count of bytes read
 *                        after the warm-up: it must be ITERATIONS * LEN.
 *   tcp-rr BATCH SIZE PCT
 *                        one op = BATCH round trips on one TCP connection
 *                        (TCP_NODELAY on both ends): write SIZE bytes, the
 *                        server reads SIZE bytes and writes SIZE bytes back,
 *                        the client reads them. Each round trip is timed on
 *                        its own (one osm_now_ns() before the write, one after
 *                        the read; the two clock reads are inside it). The
 *                        result line adds "value": the PCT-th percentile
 *                        (nearest rank) of all ITERATIONS * BATCH round trips
 *                        in microseconds, and p50_us, p99_us, mean_us, max_us.
 *   tcp-connect          one op = socket(), SO_LINGER {on, 0}, connect() to
 *                        the listening server, then read() until EOF: the
 *                        server accept()s and close()s each connection (so it
 *                        sends the FIN first), and the client's close() then
 *                        aborts with an RST. Timed: all of that, i.e. the
 *                        three-way handshake, the server's accept and close,
 *                        the client's close. Neither end is left in TIME_WAIT
 *                        (the server's side is ended by the RST, the client
 *                        never sends a FIN), so the ephemeral ports are not
 *                        exhausted at any rate. The server counts its accepts;
 *                        the count must equal ITERATIONS.
 *   udp-pps SIZE         one datagram of SIZE bytes sent with send() on a
 *                        connected UDP socket (one syscall per datagram, no
 *                        sendmmsg) to the server, which recv()s and counts.
 *                        ops = datagrams the server received, not sent: UDP
 *                        may drop datagrams when the server's receive buffer
 *                        is full; the result line adds "sent" and "lost".
 *                        Timed: all ITERATIONS sends, then an end-marker
 *                        datagram (re-sent every 200 us until answered, as it
 *                        may be dropped too) and the wait for the server's
 *                        reply on a pipe, which it writes when it reads the
 *                        marker, after every datagram queued before it.
 *
 * check: bytes received (tcp-stream), round trips (tcp-rr), accepted
 * connections (tcp-connect), datagrams received (udp-pps).
 */
#include "common.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#define USAGE                                                                   \
    "net MODE ITERATIONS PARAM... [CPU_CLIENT CPU_SERVER]\n"                    \
    "  MODE: tcp-stream LEN WARMUP_MS | tcp-rr BATCH SIZE PCT | tcp-connect\n"     \
    "        | udp-pps SIZE\n"                                                       \
    "  LEN 1..67108864 bytes, WARMUP_MS 0..60000, BATCH 1..10000000,\n"             \
    "  SIZE 1..65507 (tcp-rr: 1..1048576), PCT 0 < p <= 100,\n"                     \
    "  CPU numbers >= 0 (both or neither)"

#define UDP_MAX 65507
#define END_RETRY_NS 200000L

/* ------------------------------------------------------------------ */
/* parameters, pinning, the server process                             */

#define parse_ll(s, lo, hi) osm_parse_ll((s), (lo), (hi), USAGE)

static double parse_pct(const char *s)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v > 0.0) || v > 100.0)
        osm_usage(USAGE);
    return v;
}

static int cpu_client = -1, cpu_server = -1;
static pid_t server_pid = -1;

/* The server reports its failures itself and leaves with _exit, so that
 * nothing of the client's stdio is flushed twice. */
static void server_fail(const char *what)
{
    char buf[300];
    int saved = errno;
    snprintf(buf, sizeof(buf), "net server: %s%s%s\n", what, saved ? ": " : "",
             saved ? strerror(saved) : "");
    ssize_t w = write(STDERR_FILENO, buf, strlen(buf));
    (void)w;
    _exit(1);
}

static void kill_server(void)
{
    if (server_pid > 0) {
        kill(server_pid, SIGKILL);
        int st;
        while (waitpid(server_pid, &st, 0) < 0 && errno == EINTR)
            ;
        server_pid = -1;
    }
}

/* Forks the server; in the child, runs serve(fd) and exits with its status. */
static void start_server(int fd, int extra_fd, int (*serve)(int fd, int extra_fd))
{
    if (cpu_client >= 0) {
        char msg[200];
        if (osm_pin_self(cpu_client, msg, sizeof(msg)) != 0) {
            errno = 0;
            osm_die("net: client: %s", msg);
        }
    }
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        osm_die("net: fork");
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        if (cpu_server >= 0) {
            char msg[200];
            if (osm_pin_self(cpu_server, msg, sizeof(msg)) != 0) {
                errno = 0;
                server_fail(msg);
            }
        }
        _exit(serve(fd, extra_fd));
    }
    server_pid = pid;
    if (atexit(kill_server) != 0) {
        kill_server();
        errno = 0;
        osm_die("net: atexit");
    }
}

/* Waits for the server to end by itself; dies unless it exited with 0. */
static void reap_server(const char *mode)
{
    int st = 0;
    pid_t w;
    do {
        w = waitpid(server_pid, &st, 0);
    } while (w < 0 && errno == EINTR);
    if (w != server_pid)
        osm_die("net %s: waitpid", mode);
    server_pid = -1;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        errno = 0;
        osm_die("net %s: server failed (wait status 0x%x)", mode, st);
    }
}

/* A socket of the given type bound to 127.0.0.1 on an ephemeral port. */
static int bound_socket(int type, struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        if (errno == EAFNOSUPPORT || errno == EPERM || errno == EACCES)
            osm_unsupported("no IPv4 sockets here (%s): run osmark where 127.0.0.1 is "
                            "available", strerror(errno));
        osm_die("net: socket");
    }
    memset(addr, 0, sizeof(*addr));
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr->sin_port = 0;
    if (bind(fd, (struct sockaddr *)addr, sizeof(*addr)) != 0) {
        if (errno == EADDRNOTAVAIL)
            osm_unsupported("cannot bind 127.0.0.1 (no loopback interface): "
                            "ip link set lo up");
        osm_die("net: bind 127.0.0.1:0");
    }
    socklen_t len = sizeof(*addr);
    if (getsockname(fd, (struct sockaddr *)addr, &len) != 0)
        osm_die("net: getsockname");
    return fd;
}

static int tcp_listener(struct sockaddr_in *addr)
{
    int fd = bound_socket(SOCK_STREAM, addr);
    if (listen(fd, SOMAXCONN) != 0)
        osm_die("net: listen");
    return fd;
}

static int tcp_connect(const struct sockaddr_in *addr, int nodelay)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        osm_die("net: socket");
    int one = 1;
    if (nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        osm_die("net: TCP_NODELAY");
    if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) != 0)
        osm_die("net: connect 127.0.0.1:%d", ntohs(addr->sin_port));
    return fd;
}

/* Reads exactly len bytes; 0 on success, 1 on EOF before any byte, -1 on error
 * or EOF in the middle. */
static int read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return got == 0 ? 1 : -1;
        if (r < 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, (const char *)buf + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

static unsigned char *alloc_buffer(size_t len)
{
    void *mem = NULL;
    int rc = posix_memalign(&mem, 4096, len);
    if (rc != 0) {
        errno = rc;
        osm_die("net: cannot allocate %zu bytes", len);
    }
    unsigned char *buf = mem;
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)(i * 131u + 7u);
    return buf;
}

/* ------------------------------------------------------------------ */
/* tcp-stream                                                          */

static size_t stream_len;
static long long stream_warmup_ms;

/* The warm-up: reads until the client says (on the pipe) how many bytes it sent
 * before the timed region and all of them are read, then acknowledges with one
 * byte, so that the timed region starts with empty queues on a warm connection. */
static void stream_server_warmup(int fd, int warm_fd, unsigned char *buf)
{
    uint64_t got = 0, target = UINT64_MAX;
    struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN}, {.fd = warm_fd, .events = POLLIN}};
    while (got < target) {
        if (poll(pfd, target == UINT64_MAX ? 2 : 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            server_fail("poll");
        }
        if (target == UINT64_MAX && pfd[1].revents) {
            if (read_full(warm_fd, &target, sizeof(target)) != 0)
                server_fail("read of the warm-up byte count");
        }
        if (pfd[0].revents) {
            ssize_t r = read(fd, buf, stream_len);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                server_fail("read during the warm-up");
            got += (uint64_t)r;
        }
    }
    if (got != target)
        server_fail("read past the warm-up");
    unsigned char ack = 'W';
    if (write_full(fd, &ack, 1) != 0)
        server_fail("write of the warm-up ack");
}

static int stream_server(int lfd, int warm_fd)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        server_fail("accept");
    close(lfd);
    unsigned char *buf = malloc(stream_len);
    if (!buf)
        server_fail("malloc");
    if (stream_warmup_ms > 0)
        stream_server_warmup(fd, warm_fd, buf);
    close(warm_fd);
    uint64_t total = 0;
    for (;;) {
        ssize_t r = read(fd, buf, stream_len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            server_fail("read");
        if (r == 0)
            break;
        total += (uint64_t)r;
    }
    if (write_full(fd, &total, sizeof(total)) != 0)
        server_fail("write of the reply");
    close(fd);
    return 0;
}

/* Streams for warmup_ms, then waits until the server has read all of it. */
static void stream_client_warmup(int fd, int warm_fd, const unsigned char *buf, size_t len)
{
    uint64_t sent = 0;
    uint64_t until = osm_now_ns() + (uint64_t)stream_warmup_ms * 1000000ull;
    do {
        if (write_full(fd, buf, len) != 0)
            osm_die("net tcp-stream: write during the warm-up");
        sent += len;
    } while (osm_now_ns() < until);
    if (write_full(warm_fd, &sent, sizeof(sent)) != 0)
        osm_die("net tcp-stream: write of the warm-up byte count");
    unsigned char ack = 0;
    if (read_full(fd, &ack, 1) != 0 || ack != 'W')
        osm_die("net tcp-stream: no warm-up ack from the server");
}

static void run_tcp_stream(long long n, size_t len, long long warmup_ms)
{
    struct sockaddr_in addr;
    int lfd = tcp_listener(&addr);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        osm_die("net tcp-stream: pipe");
    stream_len = len;
    stream_warmup_ms = warmup_ms;
    start_server(lfd, pfd[0], stream_server);
    close(lfd);
    close(pfd[0]);
    int fd = tcp_connect(&addr, 0);
    unsigned char *buf = alloc_buffer(len);
    if (warmup_ms > 0)
        stream_client_warmup(fd, pfd[1], buf, len);
    close(pfd[1]);

    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        if (write_full(fd, buf, len) != 0)
            osm_die("net tcp-stream: write");
    }
    if (shutdown(fd, SHUT_WR) != 0)
        osm_die("net tcp-stream: shutdown");
    uint64_t received = 0;
    if (read_full(fd, &received, sizeof(received)) != 0)
        osm_die("net tcp-stream: no reply from the server");
    uint64_t t1 = osm_now_ns();

    close(fd);
    reap_server("tcp-stream");
    free(buf);
    if (received != (uint64_t)n * len) {
        errno = 0;
        osm_die("net tcp-stream: server received %llu bytes, expected %llu",
                (unsigned long long)received, (unsigned long long)((uint64_t)n * len));
    }
    osm_sink = received;
    char extra[64];
    snprintf(extra, sizeof(extra), ", \"bytes\": %zu", len);
    osm_report(n, t1 - t0, received, extra);
}

/* ------------------------------------------------------------------ */
/* tcp-rr                                                              */

static size_t rr_size;

static int rr_server(int lfd, int unused)
{
    (void)unused;
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        server_fail("accept");
    close(lfd);
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        server_fail("TCP_NODELAY");
    unsigned char *buf = malloc(rr_size);
    if (!buf)
        server_fail("malloc");
    for (;;) {
        int r = read_full(fd, buf, rr_size);
        if (r == 1)
            break;
        if (r != 0)
            server_fail("read of a request");
        if (write_full(fd, buf, rr_size) != 0)
            server_fail("write of a response");
    }
    close(fd);
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static uint32_t percentile(const uint32_t *sorted, size_t count, double pct)
{
    size_t rank = (size_t)ceil(pct / 100.0 * (double)count);
    if (rank < 1)
        rank = 1;
    if (rank > count)
        rank = count;
    return sorted[rank - 1];
}

static void run_tcp_rr(long long n, long long batch, size_t size, double pct)
{
    if ((unsigned long long)n > (unsigned long long)(SIZE_MAX / sizeof(uint32_t)) /
                                    (unsigned long long)batch) {
        errno = 0;
        osm_die("net tcp-rr: %lld x %lld round trips are too many to record", n, batch);
    }
    size_t count = (size_t)n * (size_t)batch;
    uint32_t *rtt = malloc(count * sizeof(uint32_t));
    if (!rtt)
        osm_die("net tcp-rr: cannot allocate %zu round-trip records", count);
    memset(rtt, 0, count * sizeof(uint32_t)); /* page faults now, not in the loop */

    struct sockaddr_in addr;
    int lfd = tcp_listener(&addr);
    rr_size = size;
    start_server(lfd, -1, rr_server);
    close(lfd);
    int fd = tcp_connect(&addr, 1);
    unsigned char *buf = alloc_buffer(size);

    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (size_t i = 0; i < count; i++) {
        uint64_t a = osm_now_ns();
        buf[0] = (unsigned char)i;
        if (write_full(fd, buf, size) != 0)
            osm_die("net tcp-rr: write of a request");
        if (read_full(fd, buf, size) != 0)
            osm_die("net tcp-rr: read of a response");
        uint64_t b = osm_now_ns();
        uint64_t d = b - a;
        rtt[i] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
        acc += buf[0] == (unsigned char)i;
    }
    uint64_t t1 = osm_now_ns();

    close(fd);
    reap_server("tcp-rr");
    free(buf);
    if (acc != count) {
        errno = 0;
        osm_die("net tcp-rr: %llu of %zu responses were not the echo of their request",
                (unsigned long long)(count - acc), count);
    }
    double sum = 0;
    for (size_t i = 0; i < count; i++)
        sum += rtt[i];
    qsort(rtt, count, sizeof(uint32_t), cmp_u32);
    char extra[256];
    snprintf(extra, sizeof(extra),
             ", \"value\": %.3f, \"percentile\": %g, \"p50_us\": %.3f, \"p99_us\": %.3f, "
             "\"mean_us\": %.3f, \"max_us\": %.3f, \"round_trips\": %zu, \"bytes\": %zu",
             percentile(rtt, count, pct) / 1e3, pct, percentile(rtt, count, 50.0) / 1e3,
             percentile(rtt, count, 99.0) / 1e3, sum / (double)count / 1e3,
             rtt[count - 1] / 1e3, count, size);
    free(rtt);
    osm_sink = acc;
    osm_report(n, t1 - t0, acc, extra);
}

/* ------------------------------------------------------------------ */
/* tcp-connect                                                         */

/* Accepts and closes until the listening socket is shut down; then writes its
 * count of accepted connections on the pipe. */
static int connect_server(int lfd, int count_fd)
{
    uint64_t accepted = 0;
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EINVAL) /* the client shut the listening socket down */
                break;
            server_fail("accept");
        }
        close(fd);
        accepted++;
    }
    if (write_full(count_fd, &accepted, sizeof(accepted)) != 0)
        server_fail("write of the count");
    return 0;
}

static void run_tcp_connect(long long n)
{
    struct sockaddr_in addr;
    int lfd = tcp_listener(&addr);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        osm_die("net tcp-connect: pipe");
    start_server(lfd, pfd[1], connect_server);
    close(pfd[1]);
    const struct linger abort_on_close = {.l_onoff = 1, .l_linger = 0};

    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            osm_die("net tcp-connect: socket");
        if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close)))
            osm_die("net tcp-connect: SO_LINGER");
        if (connect(fd, (const struct sockaddr *)&addr, sizeof(addr)) != 0)
            osm_die("net tcp-connect: connect 127.0.0.1:%d", ntohs(addr.sin_port));
        char c;
        ssize_t r;
        do {
            r = read(fd, &c, 1);
        } while (r < 0 && errno == EINTR);
        if (r != 0)
            osm_die("net tcp-connect: expected the server's close, read returned %zd", r);
        close(fd);
        acc++;
    }
    uint64_t t1 = osm_now_ns();

    /* Wakes the server's accept() with EINVAL (the listening socket is shared). */
    if (shutdown(lfd, SHUT_RDWR) != 0)
        osm_die("net tcp-connect: shutdown of the listening socket");
    uint64_t accepted = 0;
    if (read_full(pfd[0], &accepted, sizeof(accepted)) != 0)
        osm_die("net tcp-connect: no count from the server");
    reap_server("tcp-connect");
    close(pfd[0]);
    close(lfd);
    if (accepted != (uint64_t)n) {
        errno = 0;
        osm_die("net tcp-connect: server accepted %llu connections, expected %lld",
                (unsigned long long)accepted, n);
    }
    osm_sink = acc;
    osm_report(n, t1 - t0, accepted, "");
}

/* ------------------------------------------------------------------ */
/* udp-pps                                                             */

static size_t udp_size;

/* Counts data datagrams (first byte 'D') until the end marker ('E'), then
 * writes the count on the pipe. */
static int udp_server(int fd, int reply_fd)
{
    unsigned char *buf = malloc(UDP_MAX);
    if (!buf)
        server_fail("malloc");
    uint64_t received = 0;
    for (;;) {
        ssize_t r = recv(fd, buf, UDP_MAX, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            server_fail("recv");
        if (r >= 1 && buf[0] == 'E')
            break;
        if (r == (ssize_t)udp_size && buf[0] == 'D')
            received++;
    }
    if (write_full(reply_fd, &received, sizeof(received)) != 0)
        server_fail("write of the count");
    return 0;
}

static void run_udp_pps(long long n, size_t size)
{
    struct sockaddr_in addr;
    int sfd = bound_socket(SOCK_DGRAM, &addr);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        osm_die("net udp-pps: pipe");
    udp_size = size;
    start_server(sfd, pfd[1], udp_server);
    close(sfd);
    close(pfd[1]);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        osm_die("net udp-pps: socket");
    if (connect(fd, (const struct sockaddr *)&addr, sizeof(addr)) != 0)
        osm_die("net udp-pps: connect 127.0.0.1:%d", ntohs(addr.sin_port));
    unsigned char *buf = alloc_buffer(size);
    buf[0] = 'D';
    unsigned char end_marker = 'E';
    struct pollfd pw = {.fd = pfd[0], .events = POLLIN};
    const struct timespec retry = {.tv_sec = 0, .tv_nsec = END_RETRY_NS};
    long long end_sends = 0;

    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        ssize_t w = send(fd, buf, size, 0);
        if (w != (ssize_t)size && !(w < 0 && (errno == ENOBUFS || errno == EAGAIN ||
                                              errno == ECONNREFUSED)))
            osm_die("net udp-pps: send");
    }
    for (;;) {
        /* The marker may be dropped like any datagram: send it until answered. */
        end_sends++;
        if (send(fd, &end_marker, 1, 0) < 0 && errno != ENOBUFS && errno != EAGAIN &&
            errno != ECONNREFUSED)
            osm_die("net udp-pps: send of the end marker");
        int r = ppoll(&pw, 1, &retry, NULL);
        if (r < 0 && errno != EINTR)
            osm_die("net udp-pps: ppoll");
        if (r > 0)
            break;
        if (end_sends > 50000) { /* 10 s without an answer */
            errno = 0;
            osm_die("net udp-pps: the server never answered the end marker");
        }
    }
    uint64_t received = 0;
    if (read_full(pfd[0], &received, sizeof(received)) != 0)
        osm_die("net udp-pps: no count from the server");
    uint64_t t1 = osm_now_ns();

    close(fd);
    close(pfd[0]);
    reap_server("udp-pps");
    free(buf);
    if (received == 0 || received > (uint64_t)n) {
        errno = 0;
        osm_die("net udp-pps: the server received %llu of %lld datagrams",
                (unsigned long long)received, n);
    }
    osm_sink = received;
    char extra[160];
    snprintf(extra, sizeof(extra), ", \"sent\": %lld, \"lost\": %llu, \"bytes\": %zu", n,
             (unsigned long long)((uint64_t)n - received), size);
    osm_report((long long)received, t1 - t0, received, extra);
}

/* ------------------------------------------------------------------ */

/* Parses the optional trailing CPU_CLIENT CPU_SERVER; returns the argc left. */
static int parse_cpus(int argc, char **argv, int base)
{
    if (argc == base)
        return argc;
    if (argc != base + 2)
        osm_usage(USAGE);
    cpu_client = (int)parse_ll(argv[base], 0, CPU_SETSIZE - 1);
    cpu_server = (int)parse_ll(argv[base + 1], 0, CPU_SETSIZE - 1);
    return base;
}

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, USAGE);
    const char *mode = argv[1];
    signal(SIGPIPE, SIG_IGN); /* a dead peer is an error return, not a silent death */

    if (strcmp(mode, "tcp-stream") == 0) {
        if (argc < 4)
            osm_usage(USAGE);
        if (argc < 5)
            osm_usage(USAGE);
        parse_cpus(argc, argv, 5);
        size_t len = (size_t)parse_ll(argv[3], 1, 64ll * 1024 * 1024);
        long long warmup_ms = parse_ll(argv[4], 0, 60000);
        if ((unsigned long long)n > UINT64_MAX / len)
            osm_usage(USAGE);
        run_tcp_stream(n, len, warmup_ms);
    } else if (strcmp(mode, "tcp-rr") == 0) {
        if (argc < 6)
            osm_usage(USAGE);
        parse_cpus(argc, argv, 6);
        long long batch = parse_ll(argv[3], 1, 10000000);
        size_t size = (size_t)parse_ll(argv[4], 1, 1024 * 1024);
        double pct = parse_pct(argv[5]);
        run_tcp_rr(n, batch, size, pct);
    } else if (strcmp(mode, "tcp-connect") == 0) {
        parse_cpus(argc, argv, 3);
        run_tcp_connect(n);
    } else if (strcmp(mode, "udp-pps") == 0) {
        if (argc < 4)
            osm_usage(USAGE);
        parse_cpus(argc, argv, 4);
        size_t size = (size_t)parse_ll(argv[3], 1, UDP_MAX);
        run_udp_pps(n, size);
    } else {
        osm_usage(USAGE);
    }
    return 0;
}
