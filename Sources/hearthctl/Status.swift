import ArgumentParser
import Foundation
import HearthClient

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A live summary of the daemons, from their ops endpoints (/metrics, /readyz).",
        discussion: """
            By default it reads the documented ports that deploy/local/run and the systemd units use: family-broker \
            on 127.0.0.1:9701, child-device on 9702, parent-device on 9703. Name others with --endpoint NAME=HOST:PORT.
            """)

    @Option(name: .customLong("endpoint"), help: "NAME=HOST:PORT of a daemon's ops endpoint; repeat for several.")
    var endpoints: [String] = []

    @Flag(help: "Refresh until interrupted, with rates since the previous refresh.")
    var watch = false

    @Option(help: "Seconds between refreshes with --watch.")
    var interval: Double = 2

    static let defaults = [
        "family-broker=127.0.0.1:9701", "child-device=127.0.0.1:9702", "parent-device=127.0.0.1:9703",
    ]

    func validate() throws {
        guard interval >= 0.2 else { throw ValidationError("--interval must be at least 0.2 seconds") }
        for endpoint in endpoints where !endpoint.contains("=") {
            throw ValidationError("--endpoint '\(endpoint)' is not NAME=HOST:PORT")
        }
    }

    func run() async throws {
        let targets = (endpoints.isEmpty ? Self.defaults : endpoints).map { entry -> (String, OpsProbe) in
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], OpsProbe(address: parts[1]))
        }
        var previous: [String: (MetricsSnapshot, ContinuousClock.Instant)] = [:]
        repeat {
            var lines: [String] = []
            var anyUp = false
            for (name, probe) in targets {
                let now = ContinuousClock.now
                do {
                    let snapshot = try await probe.metrics()
                    let ready = try await probe.readiness()
                    anyUp = true
                    let before = previous[name].map { (snapshot: $0.0, seconds: Self.seconds(now - $0.1)) }
                    lines.append(Self.line(name: name, address: probe.address, ready: ready, snapshot, since: before))
                    previous[name] = (snapshot, now)
                } catch {
                    lines.append("\(Self.pad(name, 14)) \(Self.pad(probe.address, 16)) down (\(Self.reason(error)))")
                }
            }
            // The screen is cleared on a terminal only: a pipe or a file gets each refresh after the last.
            if watch, isatty(STDOUT_FILENO) != 0 { print("\u{1B}[H\u{1B}[2J", terminator: "") }
            if watch {
                print("hearthctl status, \(Date().formatted(date: .omitted, time: .standard)) (Ctrl-C to stop)\n")
            }
            print(lines.joined(separator: "\n"))
            // Written now, not when a pipe's buffer fills: whoever reads the pipe sees each refresh as it comes.
            fflush(nil)
            if !watch {
                if !anyUp { throw ExitCode(3) }
                return
            }
            try await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        } while true
    }

    static func line(
        name: String, address: String, ready: (ok: Bool, detail: String), _ m: MetricsSnapshot,
        since before: (snapshot: MetricsSnapshot, seconds: Double)?
    ) -> String {
        func count(_ metric: String, _ label: String) -> String {
            let total = m.total(metric)
            var text = "\(label) \(Int(total))"
            if let before, before.seconds > 0 {
                text += String(format: " (%.1f/s)", (total - before.snapshot.total(metric)) / before.seconds)
            }
            return text
        }
        var parts = ["\(pad(name, 14)) \(pad(address, 16)) \(ready.ok ? "ready" : "NOT READY (\(ready.detail))")"]
        if m.samples.contains(where: { $0.name.hasPrefix("hearth_broker_") }) {
            parts.append(count("hearth_broker_asks_total", "asks"))
            parts.append(count("hearth_broker_answers_total", "answers"))
            parts.append(count("hearth_broker_default_responses_total", "default responses"))
            parts.append(count("hearth_broker_errors_total", "errors"))
            parts.append(count("hearth_broker_syncs_total", "syncs"))
            parts.append("connected devices \(Int(m.total("hearth_broker_connected_devices")))")
            parts.append("subscribed members \(Int(m.total("hearth_broker_subscribed_members")))")
            if let partitions = partitions(m) { parts.append(partitions) }
            let commits = m.total("hearth_broker_commit_seconds_count")
            if commits > 0 {
                let mean = m.total("hearth_broker_commit_seconds_sum") / commits * 1000
                // The histogram's top bucket is 1 s: a p99 past it has no upper bound to show.
                let p99 =
                    m.histogramQuantile("hearth_broker_commit_seconds", 0.99).map {
                        $0.isFinite ? String(format: "≤ %g ms", $0 * 1000) : "> 1 s"
                    } ?? "-"
                parts.append(String(format: "commits %d, mean %.2f ms, p99 %@", Int(commits), mean, p99))
            }
        } else {
            parts.append(m.total("hearth_device_linked") > 0 ? "linked" : "not linked")
            parts.append(count("hearth_device_events_applied_total", "events applied"))
            parts.append(count("hearth_device_syncs_total", "syncs"))
            let local = m.byLabel("hearth_device_local_requests_total", "type")
            parts.append("local asks \(Int(local["ask"] ?? 0)), answers \(Int(local["answer"] ?? 0))")
            parts.append(count("hearth_device_broker_errors_total", "broker errors"))
        }
        return parts.joined(separator: "  ")
    }

    /// A cluster's broker: the partitions it serves, each with its lease epoch (`partition@epoch`).
    static func partitions(_ m: MetricsSnapshot) -> String? {
        guard m.samples.contains(where: { $0.name == "hearth_broker_partitions_owned" }) else { return nil }
        let epochs = m.byLabel("hearth_broker_partition_epoch", "partition").compactMap { label, epoch in
            Int(label).flatMap { epoch > 0 ? ($0, Int(epoch)) : nil }
        }.sorted { $0.0 < $1.0 }
        let list = epochs.map { "\($0.0)@\($0.1)" }.joined(separator: " ")
        return "partitions \(Int(m.total("hearth_broker_partitions_owned")))" + (list.isEmpty ? "" : " (\(list))")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func reason(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return urlError.code == .cannotConnectToHost ? "connection refused" : "\(urlError.code)"
        }
        return "\(error)"
    }
}
