#!/bin/sh
# multi.sh JOBS SCRIPTDIR: osmark's "Shell Scripts (JOBS concurrent)" test.
#
# Starts JOBS background jobs of
#     /bin/sh SCRIPTDIR/tst.sh SCRIPTDIR/input.txt
# in the current directory, then waits for every one of them. Exits 1 if
# any job failed, 2 on bad usage. POSIX sh only.

usage() {
    echo "usage: multi.sh JOBS SCRIPTDIR" >&2
    exit 2
}

[ $# -eq 2 ] || usage
case $1 in
'' | *[!0-9]*) usage ;;
esac
[ "$1" -ge 1 ] || usage
jobs=$1
dir=$2

pids=
i=0
while [ "$i" -lt "$jobs" ]; do
    /bin/sh "$dir/tst.sh" "$dir/input.txt" &
    pids="$pids $!"
    i=$((i + 1))
done

rc=0
for pid in $pids; do
    wait "$pid" || rc=1
done
exit $rc
