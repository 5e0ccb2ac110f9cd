import ArgumentParser
import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

extension Parent {
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A child's history as the broker keeps it: answers, expiries, withdrawals, settings changes.",
            discussion: """
                From the family broker's record, the same for every guardian whichever device they use: who answered \
                each question with which choice (from which device, or in person) and their message, what expired or \
                was withdrawn, and who changed the child's limits, contacts, approvals, passcode or age range \
                sharing. Oldest first, fetched a page at a time; needs parent-device linked to its broker.
                """)
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String
        @Option(
            help: """
                Only what happened at or after this moment: ISO 8601, e.g. 2026-11-24T09:00:00Z, or a date alone, \
                e.g. 2026-11-24, meaning that day's midnight UTC (the times printed are UTC).
                """)
        var since: String?
        @Option(help: "Only the newest N entries (still printed oldest first).") var last: UInt32?
        @Option(help: "Entries asked for per request (1-1000).") var pageSize: UInt32 = HistoryQuery.maxLimit
        @Flag(help: "One JSON object per line.") var json = false

        func validate() throws {
            guard (1...HistoryQuery.maxLimit).contains(pageSize) else {
                throw ValidationError("--page-size must be 1 to \(HistoryQuery.maxLimit)")
            }
            if let last, last == 0 { throw ValidationError("--last must be at least 1") }
        }

        func run() async throws {
            var from: Date?
            if let since {
                guard let date = Self.moment(since) else {
                    throw ValidationError(
                        "--since '\(since)' is not an ISO 8601 date and time (e.g. 2026-11-24T09:00:00Z) or date "
                            + "(e.g. 2026-11-24, midnight UTC)")
                }
                from = date
            }
            let entries = try await fetch(since: from)
            if entries.isEmpty, !json {
                print("Nothing recorded about \(child)\(since.map { " since \($0)" } ?? "").")
            }
            for entry in entries { print(json ? Self.json(entry) : Self.line(entry)) }
        }

        /// `text` as an ISO 8601 date and time, or as a date alone: that day's midnight UTC.
        static func moment(_ text: String) -> Date? {
            if let date = try? Date(text, strategy: .iso8601) { return date }
            let day = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day()
            return try? Date(text, strategy: day)
        }

        /// Every page (or, with --last, the newest entries), oldest first.
        private func fetch(since: Date?) async throws -> [HistoryEntry] {
            var query = HistoryQuery(
                childID: child, limit: min(last ?? pageSize, pageSize), newestFirst: last != nil, since: since)
            // One connection for every page.
            let client = try await DaemonSocket.connect(daemon: "parent-device", path: options.socket)
            defer { Task { await client.close() } }
            var entries: [HistoryEntry] = []
            while true {
                let reply: Message
                do {
                    reply = try await client.request(.history(query), timeout: .seconds(10))
                } catch {
                    throw DaemonSocket.explain(error, daemon: "parent-device")
                }
                guard case .historyPage(_, let page, let next) = reply else {
                    throw CommandFailure("parent-device gave an unexpected reply")
                }
                entries += page
                if let last, entries.count >= last { return Array(entries.prefix(Int(last)).reversed()) }
                guard let next else { return last == nil ? entries : entries.reversed() }
                query.cursor = next
            }
        }

        static func line(_ entry: HistoryEntry) -> String {
            let time = entry.recordedAt.formatted(.iso8601)
            let from = entry.deviceID.map { "  (from \($0))" } ?? ""
            return "\(time)  \(entry.kind.name)  \(ShortText.escaped(entry.summary))\(from)"
        }

        static func json(_ entry: HistoryEntry) -> String {
            var object: [String: Any] = [
                "id": entry.id, "kind": entry.kind.name, "recordedAt": entry.recordedAt.formatted(.iso8601),
                "child": entry.childMemberID, "summary": entry.summary,
                "handles": entry.handles.map(\.description),
            ]
            object["actor"] = entry.actor
            object["device"] = entry.deviceID
            object["question"] = entry.questionID?.uuidString.lowercased()
            object["app"] = entry.appBundleID
            // A withdrawal is its own kind, nobody's answer: the default the app received is not printed as one.
            if entry.kind != .withdrawn {
                object["choice"] = entry.choice?.id
                object["answer"] = entry.choice?.answer.name
            }
            object["message"] = entry.message
            return Parent.jsonLine(object)
        }
    }
}
