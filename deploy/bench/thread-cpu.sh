#!/usr/bin/env bash
# thread-cpu.sh PID SECONDS: the CPU seconds each thread name of process PID used over the next SECONDS, from
# /proc/PID/task/*/stat (user + system time), one "name seconds" line per name, largest first. In a broker:
# broker-writer (the writer's stage and SQLite), broker-io (the socket loop), ZMQbg/IO/0 (libzmq's I/O thread: CURVE
# and TCP); the rest are Dispatch's threads (names ending in default-qos or overcommit: the cooperative pool, the
# checkpointer, GRDB's queue).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 PID SECONDS" >&2; exit 2; }
pid=$1 seconds=$2
ticks=$(getconf CLK_TCK)

# One line per thread: "tid name ticks". The name is in parentheses and may hold spaces; the fields after it are
# state, ppid, … with utime and stime the 12th and 13th.
sample() {
    local stat line tid name rest
    for stat in /proc/"$pid"/task/*/stat; do
        line=$(cat "$stat" 2>/dev/null) || continue
        tid=${line%% *}
        name=${line#*(}; name=${name%)*}
        rest=${line##*) }
        # shellcheck disable=SC2086
        set -- $rest
        echo "$tid ${name// /_} $(( ${12} + ${13} ))"
    done
}

[ -d /proc/"$pid" ] || { echo "no process $pid" >&2; exit 1; }
before=$(sample)
sleep "$seconds"
after=$(sample)
awk -v ticks="$ticks" '
    NR == FNR { start[$1] = $3; next }
    { used[$2] += $3 - (($1 in start) ? start[$1] : 0) }
    END { for (n in used) printf "%s %.3f\n", n, used[n] / ticks }
' <(echo "$before") <(echo "$after") | sort -k2 -n -r
