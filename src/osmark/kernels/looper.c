/* looper: run a command over and over (UnixBench's looper, used for the
 * "Shell Scripts" tests).
 *
 * Usage:  looper run ITERATIONS CMD [ARG ...]
 *
 * One op = one fork(); the child execvp()s CMD with ARGs; the parent
 * waitpid()s until the child has exited. Any non-zero exit status or a
 * death by signal is fatal (exit 1, with the status in the message). If
 * the exec itself fails, the child says so on stderr and _exit(127)s, and
 * the parent reports that as a failure too.
 *
 * The children get stdin and stdout from /dev/null (dup2 in the child):
 *   - stdin, so that they never share the kernel's stdin and its file
 *     offset (UnixBench's "dc < dc.dat" defect: only the first child read
 *     the input, the rest saw EOF). /dev/null is opened only after
 *     osm_ready() has consumed the start byte from the real stdin.
 *   - stdout, so that nothing a command prints can mix into the kernel's
 *     one-line JSON result.
 * stderr is inherited, so a failing command's messages stay visible.
 * OSMARK_SYNC is removed from the children's environment, so a command
 * that is itself an osmark kernel does not wait for a start byte.
 *
 * Timed region: the loop of ITERATIONS fork + exec + run of CMD + exit +
 * waitpid only. Opening /dev/null happens before t0.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>

static const char usage_text[] = "looper run ITERATIONS CMD [ARG ...]";

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 4, usage_text);
    if (strcmp(argv[1], "run") != 0 || argv[3][0] == '\0')
        osm_usage(usage_text);
    char **cmd = &argv[3];
    fflush(stdout); /* nothing buffered may be duplicated into a child */

    osm_ready();
    /* After the barrier: the start byte has been read from the real stdin. */
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0)
        osm_die("looper: open /dev/null");
    unsetenv("OSMARK_SYNC");

    uint64_t check = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            osm_die("looper: fork");
        if (pid == 0) {
            /* dup2 clears FD_CLOEXEC on 0 and 1; devnull itself closes on exec. */
            if (dup2(devnull, STDIN_FILENO) < 0 || dup2(devnull, STDOUT_FILENO) < 0) {
                int e = errno;
                fprintf(stderr, "looper: dup2 /dev/null: %s\n", strerror(e));
                _exit(127);
            }
            execvp(cmd[0], cmd);
            int e = errno;
            fprintf(stderr, "looper: exec %s: %s\n", cmd[0], strerror(e));
            _exit(127);
        }
        int status;
        pid_t w;
        while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
            ;
        if (w != pid)
            osm_die("looper: waitpid");
        if (status != 0) {
            errno = 0;
            if (WIFEXITED(status))
                osm_die("looper: run %lld of %lld: %s exited with status %d%s", i + 1, n, cmd[0],
                        WEXITSTATUS(status),
                        WEXITSTATUS(status) == 127 ? " (exec failed or command not found)" : "");
            else if (WIFSIGNALED(status))
                osm_die("looper: run %lld of %lld: %s was killed by signal %d (%s)", i + 1, n,
                        cmd[0], WTERMSIG(status), strsignal(WTERMSIG(status)));
            else
                osm_die("looper: run %lld of %lld: %s ended with wait status 0x%x", i + 1, n,
                        cmd[0], status);
        }
        check += (uint64_t)pid;
    }
    uint64_t t1 = osm_now_ns();

    close(devnull);
    osm_sink = check;
    osm_report(n, t1 - t0, osm_sink, "");
    return 0;
}
