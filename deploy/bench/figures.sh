#!/usr/bin/env bash
# figures.sh [OUT [STEP...]]: the runs behind docs/PERFORMANCE.md's tables, on release builds, with the raw libzmq relay
# in the same runs. STEP is any of machine, closed, open, postgres, cluster (default: all, in that order). Each run
# writes its JSON report to OUT (default .hearth/bench/<UTC time>), closed-loop runs also the broker's CPU per thread
# name (thread-cpu.sh over the measured window); summary.txt collects every run's line (summary.sh).
#
# HEARTH_BENCH_BIN: a directory holding hearth-loadtest, family-broker and family-broker-lab (the broker the load
# test's fleets run, docs/decisions/0020) to use instead of building them (e.g. to
# try the script on a debug build); HEARTH_BENCH_SCALE: a factor for every duration (e.g. 0.2 for a quick look);
# HEARTH_BENCH_RUNS: closed-loop runs (default 3).
# Figures are only comparable between runs on the same machine in the same hour: read the load averages printed
# first and last, and compare CPU per cycle rather than throughput when they are high.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=deploy/bench
out=${1:-.hearth/bench/$(date -u +%Y%m%dT%H%M%SZ)}
shift || true
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(machine closed open postgres cluster)
scale=${HEARTH_BENCH_SCALE:-1}
seconds() { awk -v s="$1" -v f="$scale" 'BEGIN { v = s * f; printf "%d", (v < 1 ? 1 : v) }'; }
mkdir -p "$out"

if [ -n "${HEARTH_BENCH_BIN:-}" ]; then
    bin=$HEARTH_BENCH_BIN
else
    swift build -c release --product family-broker
    swift build -c release --product family-broker-lab
    swift build -c release --product hearth-loadtest
    bin=$(swift build -c release --show-bin-path)
fi
loadtest=$bin/hearth-loadtest
export HEARTH_BIN_DIR=$bin

machine() {
    {
        local memory
        memory=$(free -g | awk '/^Mem:/ { print $2 }')
        echo "$(date -u +%FT%TZ) $(nproc) cores, $memory GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
        # The disk's sync: every durable commit waits for one. dd reports the mean over 200 synced 16 KiB writes.
        dd if=/dev/zero of="$out/dsync.tmp" bs=16k count=200 oflag=dsync 2>&1 | tail -1
        rm -f "$out/dsync.tmp"
    } | tee -a "$out/machine.txt"
}

# A closed-loop run, its broker's threads sampled over the middle of the measured window.
closed_run() {
    local name=$1 duration warmup log pid
    duration=$(seconds 30) warmup=$(seconds 5) log=$out/$name.log
    stdbuf -oL "$loadtest" cycle --families 200 --closed --in-flight 512 --duration "$duration" --warmup "$warmup" \
        --baseline --json "$out/$name.json" >"$log" 2>&1 &
    local run=$!
    until grep -q '^connected ' "$log" 2>/dev/null; do
        kill -0 "$run" 2>/dev/null || break
        sleep 0.2
    done
    pid=$(pgrep -P "$run" -x family-broker || true)
    if [ -n "$pid" ]; then
        sleep $((warmup + 1))
        "$here/thread-cpu.sh" "$pid" $((duration > 3 ? duration - 2 : 1)) >"$out/$name.threads" || true
    fi
    wait "$run"
    if [ -s "$out/$name.threads" ]; then
        local cps window
        cps=$(jq '.broker.cyclesPerSecond' "$out/$name.json")
        window=$((duration > 3 ? duration - 2 : 1))
        awk -v cps="$cps" -v w="$window" -v run="$name" \
            '{ printf "%s  broker thread %s: %.1f µs per cycle\n", run, $1, $2 / (cps * w) * 1e6 }' \
            "$out/$name.threads" | tee -a "$out/summary.txt"
    fi
}

closed() {
    for ((i = 1; i <= ${HEARTH_BENCH_RUNS:-3}; i++)); do
        closed_run "closed-$i"
        "$here/summary.sh" "$out/closed-$i.json" | tee -a "$out/summary.txt"
    done
}

open() {
    for rate in 500 1000 2000 3000 4000 5000; do
        "$loadtest" cycle --families 100 --rate "$rate" --duration "$(seconds 20)" --warmup "$(seconds 5)" \
            --baseline --quiet --json "$out/open-$rate.json" >"$out/open-$rate.log" 2>&1
        "$here/summary.sh" "$out/open-$rate.json" | tee -a "$out/summary.txt"
    done
}

postgres() {
    "$loadtest" cycle --store postgres --families 200 --closed --in-flight 512 --duration "$(seconds 30)" \
        --warmup "$(seconds 5)" --baseline --quiet --json "$out/postgres.json" >"$out/postgres.log" 2>&1
    "$here/summary.sh" "$out/postgres.json" | tee -a "$out/summary.txt"
}

cluster() {
    "$loadtest" cycle --brokers 3 --store postgres --partitions 12 --families 200 --closed --in-flight 512 \
        --duration "$(seconds 20)" --warmup "$(seconds 5)" --quiet --json "$out/cluster.json" >"$out/cluster.log" 2>&1
    "$here/summary.sh" "$out/cluster.json" | tee -a "$out/summary.txt"
}

for step in "${steps[@]}"; do
    case $step in
        machine | closed | open | postgres | cluster) "$step" ;;
        *) echo "unknown step $step (machine, closed, open, postgres, cluster)" >&2; exit 2 ;;
    esac
done
echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
echo "reports in $out"
