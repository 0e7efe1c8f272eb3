/* spawn: process creation (UnixBench "Process Creation").
 *
 * Usage:  spawn run ITERATIONS
 *
 * One op = one fork(); the child calls _exit(0) at once; the parent
 * waitpid()s for it. No exec. A fork failure or a child status other than
 * a plain exit(0) is fatal.
 *
 * Timed region: the loop of ITERATIONS fork + child exit + waitpid, i.e.
 * the copy of this (small) process's address space, the child's exit and
 * the reap.
 */
#include "common.h"

#include <sys/types.h>
#include <sys/wait.h>

static const char usage_text[] = "spawn run ITERATIONS";

int main(int argc, char **argv)
{
    long long n = osm_iterations(argc, argv, 3, usage_text);
    if (argc != 3 || strcmp(argv[1], "run") != 0)
        osm_usage(usage_text);
    fflush(stdout); /* nothing buffered may be duplicated into a child */

    osm_ready();
    uint64_t check = 0;
    uint64_t t0 = osm_now_ns();
    for (long long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            osm_die("spawn: fork");
        if (pid == 0)
            _exit(0);
        int status;
        pid_t w;
        while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
            ;
        if (w != pid)
            osm_die("spawn: waitpid");
        if (status != 0) {
            errno = 0;
            osm_die("spawn: child %ld ended with wait status 0x%x", (long)pid, status);
        }
        check += (uint64_t)pid;
    }
    uint64_t t1 = osm_now_ns();

    osm_sink = check;
    osm_report(n, t1 - t0, osm_sink, "");
    return 0;
}
