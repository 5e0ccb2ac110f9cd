import ArgumentParser
import Foundation
import HearthCore
import HearthTransport
import ParentKit

extension Parent {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print what a parent should know as it reaches parent-device: questions, answers, changes.",
            discussion: "Runs until interrupted. With --json, one JSON object a line, for scripts.")
        @OptionGroup var options: SocketOption
        @Flag(help: "One JSON object per line.") var json = false
        @Option(help: "First print the notifications numbered above this one (0: the device's last 256).")
        var after: UInt64?
        @Option(help: "Stop after this many notifications.") var count: Int?

        func run() async throws {
            guard LocalEndpoints.socketExists(options.socket) else {
                _ = try await DaemonSocket.connect(daemon: "parent-device", path: options.socket)
                return
            }
            // ParentNotifications would wait on child-device's socket for ever, for pushes that never come.
            if let wrong = DaemonIdentity.mismatch(needed: "parent-device", path: options.socket) { throw wrong }
            let notifications = ParentNotifications(socketPath: options.socket)
            if let after {
                await printAll(notifications.updates(after: after))
            } else {
                await printAll(notifications.updates)
            }
            await notifications.close()
        }

        private func printAll(_ updates: some AsyncSequence<ParentNotification, Never>) async {
            var printed = 0
            for await notification in updates {
                // Written at once, not buffered: a script reading a pipe sees each line as it comes.
                let line = json ? Self.json(notification) : Self.line(notification)
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
                printed += 1
                if let count, printed >= count { break }
            }
        }

        static func line(_ n: ParentNotification) -> String {
            let time = n.createdAt.formatted(.iso8601)
            let question = n.questionID.map { "  [\($0.uuidString.lowercased().prefix(8))]" } ?? ""
            return "\(time)  \(n.kind.name)  \(ShortText.escaped(n.text))\(question)"
        }

        static func json(_ n: ParentNotification) -> String {
            var object: [String: Any] = [
                "id": n.id, "kind": n.kind.name, "createdAt": n.createdAt.formatted(.iso8601),
                "child": n.childMemberID, "text": n.text,
            ]
            object["question"] = n.questionID?.uuidString.lowercased()
            object["app"] = n.appBundleID
            object["answeredBy"] = n.answeredBy
            object["choice"] = n.choiceID
            return Parent.jsonLine(object)
        }
    }
}
