#!/usr/bin/env bash
# pg-statements.sh [SECONDS] [DIR]: what a cycle asks of PostgreSQL, from a run of `hearth-loadtest cycle --store
# postgres` (or --brokers N) already under way on this machine. Turns on the throwaway server's statement log
# (log_min_duration_statement = 0, by ALTER SYSTEM and a reload) for SECONDS (default 5), turns it off, and prints
# each statement's executions per cycle and mean time on the server. A cycle is counted as one question stored (every
# cycle of the load test asks once; a partition's owner sends no read for an ask of a child it knows, so the count is
# taken from the `question` table before and after the window). DIR: the server's directory (default: the newest
# /tmp/hearth-pg-*). The log itself slows the server: read the counts, and the times only relative to each other.
set -euo pipefail
seconds=${1:-5}
dir=${2:-$(ls -dt /tmp/hearth-pg-* | head -1)}
port=$(sed -n 4p "$dir/data/postmaster.pid")
sql() { psql -X -q -h "$dir" -p "$port" -U hearth -d hearth -c "$1" >/dev/null; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
questions() { as_owner psql -X -q -t -A -h "$dir" -p "$port" -U hearth -d hearth -c "SELECT count(*) FROM question"; }
start=$(wc -l <"$dir/server.log")
before=$(questions)
as_owner bash -c "$(declare -f sql); dir=$dir port=$port; sql \"ALTER SYSTEM SET log_min_duration_statement = 0\"; \
    sql \"SELECT pg_reload_conf()\""
sleep "$seconds"
after=$(questions)
as_owner bash -c "$(declare -f sql); dir=$dir port=$port; sql \"ALTER SYSTEM RESET log_min_duration_statement\"; \
    sql \"SELECT pg_reload_conf()\""
sleep 0.5
# Lines: "... LOG:  duration: 0.123 ms  execute hearth_X: ..." or "... statement: BEGIN" (simple protocol), or
# "parse/bind <unnamed>: SQL" for the unnamed statements postgres-nio sends (counted at their execute).
tail -n +"$((start + 1))" "$dir/server.log" | awk -v cycles="$((after - before))" '
    /duration: [0-9.]+ ms/ {
        match($0, /duration: [0-9.]+ ms/); ms = substr($0, RSTART + 10, RLENGTH - 13) + 0
        rest = substr($0, RSTART + RLENGTH + 2)
        if (rest ~ /^(parse|bind) /) { phase = rest; sub(/ .*/, "", phase); name = rest; sub(/^[a-z]+ [^:]*: /, "", name) }
        else if (rest ~ /^execute /) { phase = "execute"; name = rest; sub(/^execute [^:]*: /, "", name);
            if (rest ~ /^execute hearth_/) { name = rest; sub(/^execute /, "", name); sub(/:.*/, "", name) } }
        else { phase = "execute"; name = rest; sub(/^statement: /, "", name) }
        gsub(/[0-9]+/, "N", name); name = substr(name, 1, 60)
        if (phase == "execute") count[name]++
        time[name] += ms
    }
    END {
        if (cycles <= 0) { print "no cycles seen (no question stored)"; exit 1 }
        printf "%d cycles in the window\n%9s %11s  %s\n", cycles, "per cycle", "ms each", "statement" >"/dev/stderr"
        for (n in count) printf "%9.2f %11.4f  %s\n", count[n] / cycles, time[n] / count[n], n | "sort -n -r"
    }' 2>&1
