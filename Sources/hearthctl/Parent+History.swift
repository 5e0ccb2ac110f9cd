import ArgumentParser
import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

extension Parent {
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What this parent's device was told about a child: questions, answers (who, choice), expiries.",
            discussion: """
                From parent-device's own record (its last 256 notifications), oldest first; works while the broker is \
                away. Every guardian's device records the same answers, whoever gave them.
                """)
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String
        @Option(help: "Only what happened at or after this moment (ISO 8601, e.g. 2026-11-24T09:00:00Z).")
        var since: String?
        @Flag(help: "One JSON object per line.") var json = false

        func run() async throws {
            var after: Date?
            if let since {
                guard let date = try? Date(since, strategy: .iso8601) else {
                    throw ValidationError(
                        "--since '\(since)' is not an ISO 8601 date and time, e.g. 2026-11-24T09:00:00Z")
                }
                after = date
            }
            let all = try await Parent.recentNotifications(socket: options.socket)
            let shown = all.filter { item in item.childMemberID == child && after.map { item.createdAt >= $0 } ?? true }
            if shown.isEmpty, !json {
                print("Nothing recorded about \(child) on this device\(since.map { " since \($0)" } ?? "").")
            }
            for notification in shown { print(json ? Watch.json(notification) : Watch.line(notification)) }
        }
    }

    /// The daemon's last notifications: a watch from 0 pushes them (oldest first) before its reply names the head.
    static func recentNotifications(socket: String) async throws -> [ParentNotification] {
        let client = try await DaemonSocket.connect(daemon: "parent-device", path: socket)
        defer { Task { await client.close() } }
        let head: UInt64
        do {
            guard case .parentWatching(let value) = try await client.request(.parentWatch(after: 0)) else {
                throw ValidationError("parent-device gave an unexpected reply")
            }
            head = value
        } catch let error as ValidationError {
            throw error
        } catch {
            throw DaemonSocket.explain(error, daemon: "parent-device")
        }
        guard head > 0 else { return [] }
        let collected = Task {
            var list: [ParentNotification] = []
            for await envelope in client.pushes {
                guard case .parentNotification(let notification) = envelope.message else { continue }
                list.append(notification)
                if notification.id >= head { break }
            }
            return list
        }
        let timer = Task {
            try await Task.sleep(for: .seconds(5))
            collected.cancel()
        }
        let list = await collected.value
        timer.cancel()
        return list
    }
}
