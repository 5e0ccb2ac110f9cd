#!/usr/bin/env bash
# ab.sh BASE_BIN NEW_BIN PAIRS OUT [CYCLE OPTION...]: measures a change to the broker. The same hearth-loadtest drives
# the family-broker of BASE_BIN and of NEW_BIN (each a directory holding one, chosen through HEARTH_BIN_DIR), runs
# alternating base, new, base, new… PAIRS times, so that both see the machine's same minutes; each run's JSON report
# goes to OUT and its line to OUT/summary.txt. The cycle options default to the closed loop of docs/PERFORMANCE.md.
# Compare CPU per cycle (the broker's µs), pair by pair: a change smaller than the spread between pairs is not shown.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 BASE_BIN NEW_BIN PAIRS OUT [CYCLE OPTION...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
base=$1 new=$2 pairs=$3 out=$4
shift 4
options=("$@")
[ ${#options[@]} -gt 0 ] || options=(--families 200 --closed --in-flight 512 --duration 30 --warmup 5 --baseline)
loadtest=${HEARTH_LOADTEST:-$new/hearth-loadtest}
mkdir -p "$out"
# The load test's fleets run family-broker-lab (docs/decisions/0020); a build from before it has family-broker only,
# which takes the same flags: copy it to family-broker-lab in that directory.
for dir in "$base" "$new"; do
    [ -x "$dir/family-broker-lab" ] || { echo "$dir has no family-broker-lab (see docs/decisions/0020)" >&2; exit 2; }
done
for ((i = 1; i <= pairs; i++)); do
    for side in base new; do
        dir=$base
        [ "$side" = new ] && dir=$new
        report=$out/$side-$i.json
        HEARTH_BIN_DIR=$dir "$loadtest" cycle "${options[@]}" --quiet --json "$report" >"$out/$side-$i.log" 2>&1
        line=$("$here/summary.sh" "$report" | head -1)
        echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)  $line" | tee -a "$out/summary.txt"
    done
done
