#!/bin/sh
# tst.sh INPUT: one job of osmark's "Shell Scripts" test (UnixBench-style).
#
# In the current directory, with temp files named after this shell's pid:
#   sort INPUT into sort.$$;
#   od that file and sort the dump numerically on its first key into od.$$;
#   grep the lines containing "the" from sort.$$, tee them into grep.$$ and
#   count them with wc into wc.$$;
#   remove the four files.
# Exits non-zero if a step fails (the last command of each pipeline, as
# POSIX sh has no pipefail) or the input is missing. POSIX sh only.

if [ $# -ne 1 ]; then
    echo "usage: tst.sh INPUT" >&2
    exit 2
fi
in=$1

rc=0
sort <"$in" >sort.$$ &&
    od sort.$$ | sort -n -k 1 >od.$$ &&
    grep the sort.$$ | tee grep.$$ | wc >wc.$$ ||
    rc=1
rm -f sort.$$ od.$$ grep.$$ wc.$$ || rc=1
exit $rc
