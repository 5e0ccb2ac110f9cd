import ArgumentParser
import Foundation
import HearthClient
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

    /// The daemon's last notifications, oldest first; a clear message when it is not running.
    static func recentNotifications(socket: String) async throws -> [ParentNotification] {
        guard FileManager.default.fileExists(atPath: socket) else {
            _ = try await DaemonSocket.connect(daemon: "parent-device", path: socket)
            return []
        }
        do {
            return try await ParentConsole.recentNotifications(socketPath: socket)
        } catch {
            throw DaemonSocket.explain(error, daemon: "parent-device")
        }
    }
}
