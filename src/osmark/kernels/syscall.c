/* syscall: system call overhead (UnixBench "System Call Overhead" and,
 * in exec mode, "sysexec").
 *
 * Usage:  syscall mix|getpid|close|exec ITERATIONS
 *
 * One op is, by MODE:
 *   mix     close(dup(fd)); syscall(SYS_getpid); getuid(); umask(022);
 *           i.e. 5 system calls. fd is the read end of a pipe private to
 *           this process (its write end closed), not a shared fd 0, so N
 *           copies do not bounce one file's reference count between CPUs.
 *   getpid  syscall(SYS_getpid): always a real system call, never a
 *           libc-cached pid.
 *   close   close(dup(fd)): 2 system calls.
 *   exec    fork(); the child execl("/bin/true", "true", NULL) (and
 *           _exit(127) if that fails); the parent waitpid()s. A status other
 *           than exit(0) is fatal.
 *
 * Timed region: the loop of ITERATIONS ops only. The pipe is made before
 * the start barrier. Results of the calls are folded into the check value.
 */
#include "common.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

static const char usage_text[] = "syscall mix|getpid|close|exec ITERATIONS";

__attribute__((noinline, cold)) static void dup_failed(void)
{
    osm_die("syscall: dup");
}

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, usage_text);
    if (argc != 3)
        osm_usage(usage_text);
    enum { MIX, GETPID, CLOSE, EXEC } mode;
    if (strcmp(argv[1], "mix") == 0)
        mode = MIX;
    else if (strcmp(argv[1], "getpid") == 0)
        mode = GETPID;
    else if (strcmp(argv[1], "close") == 0)
        mode = CLOSE;
    else if (strcmp(argv[1], "exec") == 0)
        mode = EXEC;
    else
        osm_usage(usage_text);

    int p[2];
    if (pipe(p) != 0)
        osm_die("syscall: pipe");
    close(p[1]);
    const int fd = p[0];
    if (mode == EXEC && access("/bin/true", X_OK) != 0)
        osm_die("syscall: /bin/true");
    fflush(stdout);

    osm_ready();
    uint64_t check = 0;
    uint64_t t0 = osm_now_ns();
    switch (mode) {
    case MIX:
        for (long long i = 0; i < n; i++) {
            int d = dup(fd);
            if (d < 0)
                dup_failed();
            close(d);
            long pid = syscall(SYS_getpid);
            uid_t uid = getuid();
            mode_t old = umask(022);
            check += (uint64_t)d + (uint64_t)pid + uid + old;
        }
        break;
    case GETPID:
        for (long long i = 0; i < n; i++)
            check += (uint64_t)syscall(SYS_getpid);
        break;
    case CLOSE:
        for (long long i = 0; i < n; i++) {
            int d = dup(fd);
            if (d < 0)
                dup_failed();
            close(d);
            check += (uint64_t)d;
        }
        break;
    case EXEC:
        for (long long i = 0; i < n; i++) {
            pid_t pid = fork();
            if (pid < 0)
                osm_die("syscall: fork");
            if (pid == 0) {
                execl("/bin/true", "true", (char *)NULL);
                _exit(127);
            }
            int status;
            pid_t w;
            while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
                ;
            if (w != pid)
                osm_die("syscall: waitpid");
            if (status != 0) {
                errno = 0;
                osm_die("syscall: /bin/true (pid %ld) ended with wait status 0x%x%s", (long)pid,
                        status,
                        WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (exec failed?)" : "");
            }
            check += (uint64_t)pid;
        }
        break;
    }
    uint64_t t1 = osm_now_ns();

    osm_sink = check;
    osm_report(n, t1 - t0, osm_sink, "");
    return 0;
}
