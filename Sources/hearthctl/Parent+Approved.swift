import ArgumentParser
import Foundation
import HearthCore
import HearthProtocol

extension Parent {
    struct Approved: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the handles approved for a child, who approved each and when; --revoke takes some back.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String
        @Option(help: "Take back the approval of this handle (KIND:VALUE) first; repeatable.") var revoke: [String] = []
        @Flag(help: "One JSON object a line: handle, question, approvedBy, approvedAt, inPerson.") var json = false

        func run() async throws {
            if !revoke.isEmpty {
                let handles = try revoke.map(DaemonSocket.handle)
                let reply = try await DaemonSocket.request(
                    .revokeApproval(childID: child, handles: handles), daemon: "parent-device", path: options.socket)
                guard case .handlesRevoked(let removed) = reply else {
                    throw ValidationError("parent-device gave an unexpected reply")
                }
                if !json { print("Revoked for \(child): \(removed.map(\.description).joined(separator: ", "))") }
            }
            let reply = try await DaemonSocket.request(
                .listApproved(childID: child), daemon: "parent-device", path: options.socket)
            guard case .approvedList(_, let approvals, let complete) = reply else {
                throw ValidationError("parent-device gave an unexpected reply")
            }
            if json {
                for approval in approvals { print(Self.json(approval)) }
                return
            }
            if approvals.isEmpty { print("Nothing is approved for \(child).") }
            for approval in approvals { print(Self.line(approval, child: child)) }
            if !complete { print("(more than fit in one reply: revoke some to see the rest)") }
        }

        static func line(_ approval: Approval, child: MemberID) -> String {
            let who =
                approval.inPerson ? "approved in person" : "approved by \(approval.approvedBy ?? "a parent")"
            let when = approval.approvedAt.map { " at \($0.formatted(.iso8601))" } ?? ""
            return "\(approval.handle)  \(who)\(when)  (hearthctl parent approved \(child) --revoke \(approval.handle))"
        }

        static func json(_ approval: Approval) -> String {
            var object: [String: Any] = ["handle": approval.handle.description, "inPerson": approval.inPerson]
            object["question"] = approval.questionID?.uuidString.lowercased()
            object["approvedBy"] = approval.approvedBy
            object["approvedAt"] = approval.approvedAt.map { $0.formatted(.iso8601) }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
