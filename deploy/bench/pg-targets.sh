#!/usr/bin/env bash
# pg-targets.sh [OUT [RUNS]]: the runs behind docs/PERFORMANCE.md's "PostgreSQL targets" table, on the release builds
# in .build/release (or HEARTH_BENCH_BIN), RUNS times each (default 3), alternating so that every kind of run shares
# the same minutes: a closed loop of one broker on SQLite then one on PostgreSQL (`--store postgres` runs both), three
# brokers on one PostgreSQL, and an open loop at 500 cycles/s on SQLite, PostgreSQL, then the raw libzmq relay
# (`--baseline`): the transport's own latency on the machine that minute. JSON reports and one summary
# line per run (summary.sh) go to OUT (default .hearth/bench/pg-<UTC time>); the load average is printed before each.
# HEARTH_BENCH_FIRST: the number of the first run (to add runs to OUT); HEARTH_BENCH_NO_OPEN: skip the open loop.
# The load test's brokers are family-broker-lab (docs/decisions/0020): build it in release with hearth-loadtest; a
# binary older than any source file is refused, so the runs measure the tree as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.hearth/bench/pg-$(date -u +%Y%m%dT%H%M%SZ)}
runs=${2:-3}
bin=${HEARTH_BENCH_BIN:-.build/release}
export HEARTH_BIN_DIR=$bin
mkdir -p "$out"
[ -x "$bin/family-broker-lab" ] || { echo "$bin has no family-broker-lab: swift build -c release --product family-broker-lab" >&2; exit 2; }
# A binary older than a source file measures another build than the tree's (it happened: a week-old broker).
for product in family-broker-lab hearth-loadtest; do
    newer=$(find Sources Package.swift -newer "$bin/$product" -type f -print -quit)
    [ -z "$newer" ] || { echo "$bin/$product is older than $newer: build it again in release" >&2; exit 2; }
done
note() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) $*" | tee -a "$out/summary.txt"; }
run() {
    local name=$1
    shift
    note "$name"
    # An overloaded run (cycles still queued after the drain count as lost) exits non-zero: its report still counts.
    "$bin/hearth-loadtest" cycle "$@" --duration 20 --warmup 5 --quiet --json "$out/$name.json" >"$out/$name.log" 2>&1 ||
        true
    deploy/bench/summary.sh "$out/$name.json" | tee -a "$out/summary.txt"
}
first=${HEARTH_BENCH_FIRST:-1}
for ((i = first; i <= runs; i++)); do
    run "closed-$i" --store postgres --families 200 --closed --in-flight 64
    run "cluster-$i" --brokers 3 --store postgres --partitions 12 --families 200 --closed --in-flight 64
    [ -n "${HEARTH_BENCH_NO_OPEN:-}" ] || run "open500-$i" --store postgres --families 100 --rate 500 --baseline
done
note done
