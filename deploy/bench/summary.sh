#!/usr/bin/env bash
# summary.sh REPORT.json...: one line per target of each `hearth-loadtest cycle --json` report: cycles/s, CPU per
# cycle (the broker's; with PostgreSQL, plus the server's), latency p50 / p99 / p99.9 in ms, and errors / lost /
# duplicated; the relay's line and, when the run had --baseline, the broker-to-relay latency ratio below saturation
# (both completed the offered rate) or the throughput ratio at saturation.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 REPORT.json..." >&2; exit 2; }
for file in "$@"; do
    jq -r --arg file "$file" '
        def us(cpu; cps): if cpu == null or cps == 0 then "?" else (cpu / 100 / cps * 1e6 | round | tostring) end;
        def ms(x): (x / 10 | round) / 100 | tostring;
        def line(name; r):
            "\($file)  \(name): \(r.cyclesPerSecond | round) cycles/s, "
            + "\(us(r.server.cpuPercent; r.cyclesPerSecond)) µs"
            + (if r.database then " + server \(us(r.database.cpuPercent; r.cyclesPerSecond)) µs" else "" end)
            + " per cycle, p50/p99/p99.9 \(ms(r.latencyMicroseconds.p50)) / \(ms(r.latencyMicroseconds.p99))"
            + " / \(ms(r.latencyMicroseconds.p999)) ms, errors/lost/dup \(r.errors)/\(r.lost)/\(r.duplicated)";
        [ (if .broker then line("broker"; .broker) else empty end),
          (if .brokerPostgres then line("postgres"; .brokerPostgres) else empty end),
          (if .cluster then (.cluster.brokers | to_entries | sort_by(.key) | .[]
                             | line(.key; .value | del(.database))) else empty end),
          (if .cluster then (.cluster.brokers | [.[]] as $b | ([$b[].cyclesPerSecond] | add) as $cps
              | "\($file)  cluster: \($cps | round) cycles/s in total, brokers "
                + "\(us([$b[].server.cpuPercent // 0] | add; $cps)) µs + server "
                + "\(us([$b[].database.cpuPercent // empty] | first; $cps)) µs per cycle") else empty end),
          (if .baseline then line("relay"; .baseline) else empty end),
          (if .relayComparison.belowSaturation then
             "\($file)  broker / relay latency (below saturation): p50 \(.relayComparison.latencyP50 * 10 | round / 10)×,"
             + " p99 \(.relayComparison.latencyP99 * 10 | round / 10)×"
           elif .brokerToBaseline then
             "\($file)  broker / relay throughput: \(.brokerToBaseline * 1000 | round / 1000)"
           else empty end) ] | .[]
    ' "$file"
done
