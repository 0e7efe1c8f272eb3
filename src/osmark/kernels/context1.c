/* context1: pipe-based context switching (UnixBench "Pipe-based Context
 * Switching").
 *
 * Usage:  context1 run ITERATIONS
 *
 * One op = one round trip of an 8-byte counter between two processes:
 * the parent write()s the counter to pipe 1; the child read()s it, checks
 * that it equals the child's own expected value, and write()s it back on
 * pipe 2; the parent read()s it and checks it. A mismatch on either side is
 * a fatal "sync error" (exit 1). There is no CPU pinning: the scheduler
 * places the two processes, as in UnixBench, so the result depends on
 * whether they share a CPU.
 *
 * Set-up (untimed): both pipes are made and the child is forked before the
 * start barrier. Only the parent waits at the barrier; meanwhile the child
 * is blocked in read() on pipe 1.
 *
 * Timed region: the parent's loop of ITERATIONS round trips only. After
 * it, the parent closes its write end of pipe 1; the child sees EOF and
 * exits 0 without printing anything; the parent waitpid()s it and reports.
 * Only the parent prints the result. A child that fails makes the parent
 * exit 1.
 */
#include "common.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include <sys/wait.h>

static const char usage_text[] = "context1 run ITERATIONS";

enum { GOT_VALUE, GOT_EOF, GOT_ERROR };

/* Completes the read of one 8-byte value of which `have` bytes (0..7) are
 * already in *v. GOT_EOF: EOF before the first byte (the other side closed
 * its end); GOT_ERROR: a read error (errno set) or EOF inside the value
 * (errno 0). */
static int read_value(int fd, uint64_t *v, size_t have)
{
    unsigned char *p = (unsigned char *)v;
    while (have < sizeof *v) {
        ssize_t r = read(fd, p + have, sizeof *v - have);
        if (r > 0) {
            have += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            errno = 0;
            return have == 0 ? GOT_EOF : GOT_ERROR;
        }
        return GOT_ERROR;
    }
    return GOT_VALUE;
}

/* Slow path of the hot read: the first read() returned r != 8. */
__attribute__((noinline)) static int finish_value(int fd, uint64_t *v, ssize_t r)
{
    if (r < 0) {
        if (errno != EINTR)
            return GOT_ERROR;
        r = 0;
    }
    return read_value(fd, v, (size_t)r);
}

/* Writes one 8-byte value. A pipe write of 8 bytes is atomic, so anything
 * but 8 (after EINTR retries) is an error; errno is 0 for a short write. */
static bool write_value(int fd, uint64_t v, ssize_t w)
{
    for (;;) {
        if (w == (ssize_t)sizeof v)
            return true;
        if (w >= 0) {
            errno = 0;
            return false;
        }
        if (errno != EINTR)
            return false;
        w = write(fd, &v, sizeof v);
    }
}

/* The child: echo values until EOF. Never prints a result; any message
 * goes to stderr and the exit status is 1. */
__attribute__((noreturn)) static void child(int rfd, int wfd)
{
    uint64_t expected = 0;
    for (;;) {
        uint64_t v;
        int got = read_value(rfd, &v, 0);
        if (got == GOT_EOF)
            _exit(0); /* the parent closed pipe 1: done */
        if (got != GOT_VALUE) {
            fprintf(stderr, "context1: child: read%s%s\n", errno ? ": " : " (torn value)",
                    errno ? strerror(errno) : "");
            _exit(1);
        }
        if (v != expected) {
            fprintf(stderr, "context1: child: sync error: expected %llu, got %llu\n",
                    (unsigned long long)expected, (unsigned long long)v);
            _exit(1);
        }
        if (!write_value(wfd, v, write(wfd, &v, sizeof v))) {
            fprintf(stderr, "context1: child: write%s%s\n", errno ? ": " : " (short)",
                    errno ? strerror(errno) : "");
            _exit(1);
        }
        expected++;
    }
}

static pid_t child_pid;
static int to_child = -1;

/* Reaps the child; returns its wait status (or -1). */
static int reap(void)
{
    int status;
    pid_t w;
    while ((w = waitpid(child_pid, &status, 0)) < 0 && errno == EINTR)
        ;
    return w == child_pid ? status : -1;
}

static void describe(char *out, size_t size, int status)
{
    if (status == -1)
        snprintf(out, size, "could not be reaped");
    else if (WIFEXITED(status))
        snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(out, size, "was killed by signal %d", WTERMSIG(status));
    else
        snprintf(out, size, "ended with wait status 0x%x", status);
}

/* Parent-side failure: stop the child (EOF on pipe 1), reap it, and die
 * with the message plus the child's fate. */
__attribute__((noreturn, noinline, cold)) static void parent_fail(const char *what,
                                                                 uint64_t expected,
                                                                 uint64_t got)
{
    int saved = errno;
    char msg[160];
    if (strcmp(what, "sync") == 0)
        snprintf(msg, sizeof msg, "sync error: expected %llu, got %llu",
                 (unsigned long long)expected, (unsigned long long)got);
    else
        snprintf(msg, sizeof msg, "%s%s%s", what, saved ? ": " : "", saved ? strerror(saved) : "");
    close(to_child);
    char fate[64];
    describe(fate, sizeof fate, reap());
    errno = 0;
    osm_die("context1: %s (child %s)", msg, fate);
    exit(1);
}

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, usage_text);
    if (argc != 3 || strcmp(argv[1], "run") != 0)
        osm_usage(usage_text);

    int p1[2], p2[2]; /* p1: parent -> child, p2: child -> parent */
    if (pipe(p1) != 0 || pipe(p2) != 0)
        osm_die("context1: pipe");
    fflush(stdout);
    child_pid = fork();
    if (child_pid < 0)
        osm_die("context1: fork");
    if (child_pid == 0) {
        close(p1[1]);
        close(p2[0]);
        child(p1[0], p2[1]);
    }
    close(p1[0]);
    close(p2[1]);
    to_child = p1[1];
    const int from_child = p2[0];
    /* A dead child must show up as EPIPE and a reported status, not as a
     * silent SIGPIPE death of the parent. */
    signal(SIGPIPE, SIG_IGN);

    osm_ready();
    uint64_t check = 0;
    uint64_t t0 = osm_now_ns();
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        ssize_t w = write(to_child, &i, sizeof i);
        if (w != (ssize_t)sizeof i && !write_value(to_child, i, w))
            parent_fail("write to child", 0, 0);
        uint64_t v;
        ssize_t r = read(from_child, &v, sizeof v);
        if (r != (ssize_t)sizeof v) {
            int got = finish_value(from_child, &v, r);
            if (got != GOT_VALUE)
                parent_fail(got == GOT_EOF ? "child closed its pipe early" : "read from child",
                            0, 0);
        }
        if (v != i)
            parent_fail("sync", i, v);
        check += v;
    }
    uint64_t t1 = osm_now_ns();

    close(to_child);
    int status = reap();
    if (status != 0) {
        char fate[64];
        describe(fate, sizeof fate, status);
        errno = 0;
        osm_die("context1: child %s", fate);
    }
    osm_sink = check;
    osm_report(n, t1 - t0, osm_sink, "");
    return 0;
}
