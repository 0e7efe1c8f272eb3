/* oscost: the "OS cost card" kernel -- what basic operations cost on this
 * machine, in ns per operation.
 *
 * Usage: oscost MODE ITERATIONS [PARAM ...]   (protocol: see common.h)
 *
 * One op, per mode, and exactly what lies inside the timed region (the loop
 * between the two osm_now_ns() reads; all set-up and clean-up is outside):
 *
 *   funcall              one call of a noinline (and no-IPA) function taking
 *                        an int and returning a value derived from it behind
 *                        an empty asm barrier; timed: the loop with its
 *                        volatile counter, the call and the add into a local.
 *   syscall              one syscall(SYS_getppid) (what `perf bench syscall
 *                        basic` times); timed: the loop and the raw syscall.
 *   clock                one clock_gettime(CLOCK_MONOTONIC) through libc (the
 *                        vDSO path); timed: the loop, the call, folding ts.
 *   pipe-rtt CPU_A CPU_B one round trip of a 4-byte int between two processes
 *                        over two pipes (the `perf bench sched pipe` ping-
 *                        pong): parent pinned to CPU_A writes on pipe 1,
 *                        child pinned to CPU_B reads and writes it back on
 *                        pipe 2, parent reads it; timed: the parent's write +
 *                        read per op (child fork and pinning are set-up).
 *   thread-wake          one futex round trip between two threads of one
 *                        process (no pinning): main hands the turn to the
 *                        helper and FUTEX_WAKEs it, then FUTEX_WAITs until
 *                        the helper hands the turn back and wakes it; timed:
 *                        main's side of the loop (helper creation and join
 *                        are outside).
 *   fork                 fork(); the child _exit(0)s; the parent waitpid()s;
 *                        timed: all of that.
 *   fork-exec PATH       fork(); the child execv(PATH, {PATH, NULL}) (or
 *                        _exit(127)); the parent waitpid()s; timed: all of
 *                        that, including the exec'd program's run and exit.
 *   read-file DIR MIB    set-up writes DIR/osmark-cost-<pid>.dat (MIB MiB of
 *                        non-zero data) and reads it once so it is cached;
 *                        one op = read the whole file from offset 0 with
 *                        pread() in 1 MiB chunks into a buffer prepared in
 *                        set-up, folding one byte per chunk; timed: the
 *                        preads and the folds. The file is unlinked after.
 *   mmap-file DIR MIB    same file set-up; one op = mmap(PROT_READ,
 *                        MAP_SHARED) the whole file, read one byte of every
 *                        4096-byte page, munmap; timed: all of that (so the
 *                        page faults that map the cached pages are included).
 *
 * The file modes add `"bytes": SIZE` (bytes per op) to the result line.
 */
#include "common.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#define USAGE                                                                 \
    "oscost MODE ITERATIONS [PARAM...]\n"                                     \
    "  MODE: funcall | syscall | clock | thread-wake | fork\n"                \
    "        | pipe-rtt CPU_A CPU_B | fork-exec PATH\n"                       \
    "        | read-file DIR SIZE_MIB | mmap-file DIR SIZE_MIB"

#define MIB (1024u * 1024u)
#define PAGE_STRIDE 4096u

/* ------------------------------------------------------------------ */
/* parameter parsing                                                   */

#define parse_ll(s, lo, hi) osm_parse_ll((s), (lo), (hi), USAGE)

static void want_argc(int argc, int n)
{
    if (argc != n)
        osm_usage(USAGE);
}

/* ------------------------------------------------------------------ */
/* funcall                                                             */

/* The callee: not inlined, not cloned, not analysed across the call (noipa
 * where the compiler has it), and the asm makes the value opaque and acts as
 * a memory barrier, so the call can be neither removed nor hoisted. */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define OSM_OPAQUE __attribute__((noinline, noipa))
#endif
#endif
#ifndef OSM_OPAQUE
#define OSM_OPAQUE __attribute__((noinline))
#endif

OSM_OPAQUE int oscost_callee(int x);
OSM_OPAQUE int oscost_callee(int x)
{
    asm volatile("" : "+r"(x) : : "memory");
    return x + 1;
}

static void run_funcall(long long n)
{
    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (volatile long long i = 0; i < n; i++)
        acc += (uint64_t)(unsigned)oscost_callee((int)i);
    uint64_t t1 = osm_now_ns();
    osm_sink = acc;
    osm_report(n, t1 - t0, acc, "");
}

/* ------------------------------------------------------------------ */
/* syscall, clock                                                      */

static void run_syscall(long long n)
{
    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++)
        acc += (uint64_t)syscall(SYS_getppid);
    uint64_t t1 = osm_now_ns();
    osm_sink = acc;
    osm_report(n, t1 - t0, acc, "");
}

static void run_clock(long long n)
{
    struct timespec ts;
    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        acc ^= (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    }
    uint64_t t1 = osm_now_ns();
    osm_sink = acc;
    osm_report(n, t1 - t0, acc, "");
}

/* ------------------------------------------------------------------ */
/* pipe-rtt                                                            */

static void child_fail(const char *what, int cpu)
{
    /* The child never touches stdout and leaves with _exit, so nothing of
     * the parent's stdio is flushed twice. */
    char buf[256];
    snprintf(buf, sizeof(buf), "oscost pipe-rtt: child on CPU_B=%d: %s\n", cpu, what);
    ssize_t w = write(STDERR_FILENO, buf, strlen(buf));
    (void)w;
    _exit(1);
}

static void pipe_child(int rfd, int wfd, int cpu)
{
    char msg[200];
    if (osm_pin_self(cpu, msg, sizeof(msg)) != 0)
        child_fail(msg, cpu);
    /* Handshake: tell the parent the pin took effect. */
    int token = 0x05eed;
    if (write(wfd, &token, sizeof(token)) != (ssize_t)sizeof(token))
        child_fail("handshake write failed", cpu);
    for (;;) {
        int v;
        ssize_t r = read(rfd, &v, sizeof(v));
        if (r == 0)
            _exit(0); /* parent closed pipe 1: done */
        if (r != (ssize_t)sizeof(v))
            child_fail(r < 0 ? strerror(errno) : "short read on pipe 1", cpu);
        if (write(wfd, &v, sizeof(v)) != (ssize_t)sizeof(v))
            child_fail("write on pipe 2 failed", cpu);
    }
}

static void run_pipe_rtt(long long n, int cpu_a, int cpu_b)
{
    char msg[200];
    if (osm_pin_self(cpu_a, msg, sizeof(msg)) != 0) {
        errno = 0;
        osm_die("oscost pipe-rtt: parent (CPU_A=%d): %s", cpu_a, msg);
    }
    int p1[2], p2[2]; /* p1: parent -> child, p2: child -> parent */
    if (pipe(p1) != 0 || pipe(p2) != 0)
        osm_die("oscost pipe-rtt: pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        osm_die("oscost pipe-rtt: fork");
    if (pid == 0) {
        close(p1[1]);
        close(p2[0]);
        pipe_child(p1[0], p2[1], cpu_b);
        _exit(0);
    }
    close(p1[0]);
    close(p2[1]);
    int wfd = p1[1], rfd = p2[0];

    int token = 0;
    ssize_t r = read(rfd, &token, sizeof(token));
    if (r != (ssize_t)sizeof(token) || token != 0x05eed) {
        int st = 0;
        waitpid(pid, &st, 0);
        errno = 0;
        osm_die("oscost pipe-rtt: child could not pin itself to CPU_B=%d (see above)",
                cpu_b);
    }

    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        int v = (int)i;
        if (write(wfd, &v, sizeof(v)) != (ssize_t)sizeof(v))
            osm_die("oscost pipe-rtt: write on pipe 1");
        if (read(rfd, &v, sizeof(v)) != (ssize_t)sizeof(v))
            osm_die("oscost pipe-rtt: read on pipe 2");
        acc += (uint64_t)(unsigned)v;
    }
    uint64_t t1 = osm_now_ns();

    close(wfd); /* child sees EOF and exits */
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        osm_die("oscost pipe-rtt: waitpid");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        errno = 0;
        osm_die("oscost pipe-rtt: child failed (wait status 0x%x)", st);
    }
    close(rfd);
    osm_sink = acc;
    osm_report(n, t1 - t0, acc, "");
}

/* ------------------------------------------------------------------ */
/* thread-wake                                                         */

/* turn: 0 = main's turn, 1 = helper's turn, 2 = helper must stop.
 * Only main moves it 0 -> 1 (and to 2), only the helper moves it 1 -> 0, so
 * at most one thread ever sleeps on it. */
static _Atomic int tw_turn;
static long long tw_count;

static void futex_wait(_Atomic int *addr, int val)
{
    long r = syscall(SYS_futex, (int *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
    if (r != 0 && errno != EAGAIN && errno != EINTR)
        osm_die("oscost thread-wake: FUTEX_WAIT");
}

static void futex_wake(_Atomic int *addr)
{
    if (syscall(SYS_futex, (int *)addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) < 0)
        osm_die("oscost thread-wake: FUTEX_WAKE");
}

static void *tw_helper(void *arg)
{
    (void)arg;
    long long count = 0;
    for (;;) {
        int t;
        while ((t = atomic_load_explicit(&tw_turn, memory_order_acquire)) == 0)
            futex_wait(&tw_turn, 0);
        if (t == 2)
            break;
        count++;
        atomic_store_explicit(&tw_turn, 0, memory_order_release);
        futex_wake(&tw_turn);
    }
    tw_count = count;
    return NULL;
}

static void run_thread_wake(long long n)
{
    pthread_t th;
    atomic_store(&tw_turn, 0);
    int rc = pthread_create(&th, NULL, tw_helper, NULL);
    if (rc != 0) {
        errno = rc;
        osm_die("oscost thread-wake: pthread_create");
    }
    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        atomic_store_explicit(&tw_turn, 1, memory_order_release);
        futex_wake(&tw_turn);
        while (atomic_load_explicit(&tw_turn, memory_order_acquire) == 1)
            futex_wait(&tw_turn, 1);
    }
    uint64_t t1 = osm_now_ns();
    atomic_store_explicit(&tw_turn, 2, memory_order_release);
    futex_wake(&tw_turn);
    rc = pthread_join(th, NULL);
    if (rc != 0) {
        errno = rc;
        osm_die("oscost thread-wake: pthread_join");
    }
    if (tw_count != n) {
        errno = 0;
        osm_die("oscost thread-wake: helper counted %lld round trips, expected %lld",
                tw_count, n);
    }
    osm_sink = (uint64_t)tw_count;
    osm_report(n, t1 - t0, (uint64_t)tw_count, "");
}

/* ------------------------------------------------------------------ */
/* fork, fork-exec                                                     */

static void reap(pid_t pid, const char *what, const char *path)
{
    int st = 0;
    pid_t w;
    do {
        w = waitpid(pid, &st, 0);
    } while (w < 0 && errno == EINTR);
    if (w != pid)
        osm_die("oscost %s: waitpid", what);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return;
    errno = 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && path)
        osm_die("oscost %s: child exited with status 127: could not exec %s", what, path);
    if (WIFEXITED(st))
        osm_die("oscost %s: child exited with status %d%s%s", what, WEXITSTATUS(st),
                path ? " running " : "", path ? path : "");
    osm_die("oscost %s: child ended abnormally (wait status 0x%x)", what, st);
}

static void run_fork(long long n)
{
    fflush(NULL);
    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            osm_die("oscost fork: fork");
        if (pid == 0)
            _exit(0);
        reap(pid, "fork", NULL);
    }
    uint64_t t1 = osm_now_ns();
    osm_sink = (uint64_t)n;
    osm_report(n, t1 - t0, (uint64_t)n, "");
}

static void run_fork_exec(long long n, const char *path)
{
    if (access(path, X_OK) != 0)
        osm_die("oscost fork-exec: %s is not an executable file", path);
    char *const args[] = {(char *)path, NULL};
    fflush(NULL);
    osm_ready();
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            osm_die("oscost fork-exec: fork");
        if (pid == 0) {
            execv(path, args);
            _exit(127);
        }
        reap(pid, "fork-exec", path);
    }
    uint64_t t1 = osm_now_ns();
    osm_sink = (uint64_t)n;
    osm_report(n, t1 - t0, (uint64_t)n, "");
}

/* ------------------------------------------------------------------ */
/* read-file, mmap-file                                                */

static char file_path[PATH_MAX];
static volatile sig_atomic_t file_exists;

static void remove_file(void)
{
    if (file_exists) {
        file_exists = 0;
        unlink(file_path);
    }
}

static void on_signal(int sig)
{
    if (file_exists)
        unlink(file_path); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Creates the cached test file; returns an fd open for reading and sets
 * *bufp to a touched 1 MiB buffer. */
static int make_file(const char *dir, long long mib, unsigned char **bufp)
{
    int len = snprintf(file_path, sizeof(file_path), "%s/osmark-cost-%ld.dat", dir,
                       (long)getpid());
    if (len < 0 || (size_t)len >= sizeof(file_path)) {
        errno = 0;
        osm_die("oscost: directory name too long: %s", dir);
    }
    /* Unlink on every exit path from here on: osm_die() calls exit(). */
    if (atexit(remove_file) != 0) {
        errno = 0;
        osm_die("oscost: atexit");
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    void *mem = NULL;
    int rc = posix_memalign(&mem, 4096, MIB);
    if (rc != 0) {
        errno = rc;
        osm_die("oscost: cannot allocate 1 MiB buffer");
    }
    unsigned char *buf = mem;

    int fd = open(file_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        osm_die("oscost: cannot create %s", file_path);
    file_exists = 1;

    for (long long c = 0; c < mib; c++) {
        for (size_t i = 0; i < MIB; i++)
            buf[i] = (unsigned char)(((size_t)c * 131u + i * 7u) % 255u + 1u);
        size_t done = 0;
        while (done < MIB) {
            ssize_t w = pwrite(fd, buf + done, MIB - done, (off_t)c * MIB + (off_t)done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                osm_die("oscost: writing %s", file_path);
            done += (size_t)w;
        }
    }
    /* Read it through once so every page is in the page cache. */
    uint64_t acc = 0;
    for (long long c = 0; c < mib; c++) {
        ssize_t r = pread(fd, buf, MIB, (off_t)c * MIB);
        if (r != (ssize_t)MIB)
            osm_die("oscost: reading back %s", file_path);
        acc += buf[r - 1];
    }
    osm_sink = acc;
    *bufp = buf;
    return fd;
}

static void finish_file(int fd, unsigned char *buf)
{
    close(fd);
    remove_file();
    free(buf);
}

static void run_read_file(long long n, const char *dir, long long mib)
{
    unsigned char *buf = NULL;
    int fd = make_file(dir, mib, &buf);
    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        for (long long c = 0; c < mib; c++) {
            ssize_t r = pread(fd, buf, MIB, (off_t)c * MIB);
            if (r != (ssize_t)MIB)
                osm_die("oscost read-file: pread %s", file_path);
            acc += buf[MIB - 1];
        }
    }
    uint64_t t1 = osm_now_ns();
    finish_file(fd, buf);
    osm_sink = acc;
    char extra[64];
    snprintf(extra, sizeof(extra), ", \"bytes\": %lld", mib * (long long)MIB);
    osm_report(n, t1 - t0, acc, extra);
}

static void run_mmap_file(long long n, const char *dir, long long mib)
{
    unsigned char *buf = NULL;
    int fd = make_file(dir, mib, &buf);
    size_t size = (size_t)mib * MIB;
    osm_ready();
    uint64_t acc = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        const unsigned char *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            osm_die("oscost mmap-file: mmap %s", file_path);
        uint64_t s = 0;
        for (size_t off = 0; off < size; off += PAGE_STRIDE)
            s += p[off];
        acc += s;
        if (munmap((void *)p, size) != 0)
            osm_die("oscost mmap-file: munmap");
    }
    uint64_t t1 = osm_now_ns();
    finish_file(fd, buf);
    osm_sink = acc;
    char extra[64];
    snprintf(extra, sizeof(extra), ", \"bytes\": %lld", mib * (long long)MIB);
    osm_report(n, t1 - t0, acc, extra);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, USAGE);
    const char *mode = argv[1];

    if (strcmp(mode, "funcall") == 0) {
        want_argc(argc, 3);
        run_funcall(n);
    } else if (strcmp(mode, "syscall") == 0) {
        want_argc(argc, 3);
        run_syscall(n);
    } else if (strcmp(mode, "clock") == 0) {
        want_argc(argc, 3);
        run_clock(n);
    } else if (strcmp(mode, "pipe-rtt") == 0) {
        want_argc(argc, 5);
        int a = (int)parse_ll(argv[3], 0, CPU_SETSIZE - 1);
        int b = (int)parse_ll(argv[4], 0, CPU_SETSIZE - 1);
        run_pipe_rtt(n, a, b);
    } else if (strcmp(mode, "thread-wake") == 0) {
        want_argc(argc, 3);
        run_thread_wake(n);
    } else if (strcmp(mode, "fork") == 0) {
        want_argc(argc, 3);
        run_fork(n);
    } else if (strcmp(mode, "fork-exec") == 0) {
        want_argc(argc, 4);
        if (argv[3][0] == '\0')
            osm_usage(USAGE);
        run_fork_exec(n, argv[3]);
    } else if (strcmp(mode, "read-file") == 0 || strcmp(mode, "mmap-file") == 0) {
        want_argc(argc, 5);
        if (argv[3][0] == '\0')
            osm_usage(USAGE);
        /* up to 1 TiB; the size in bytes must fit size_t and off_t */
        long long mib = parse_ll(argv[4], 1, 1048576);
        if ((unsigned long long)mib > (unsigned long long)(SIZE_MAX / MIB))
            osm_usage(USAGE);
        if (mode[0] == 'r')
            run_read_file(n, argv[3], mib);
        else
            run_mmap_file(n, argv[3], mib);
    } else {
        osm_usage(USAGE);
    }
    return 0;
}
