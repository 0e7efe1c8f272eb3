/* tiny: the smallest useful program, exec'd by `oscost fork-exec PATH`.
 *
 * It is not a protocol kernel: it takes no arguments, prints nothing and
 * exits 0 at once, so that one fork-exec op measures fork + execve + the
 * dynamic loader and libc start-up + exit + waitpid, and nothing else.
 */
int main(void)
{
    return 0;
}
