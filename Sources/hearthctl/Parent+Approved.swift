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
            var notApproved: [CommunicationHandle] = []
            if !revoke.isEmpty {
                let handles = try revoke.map(DaemonSocket.handle)
                let reply = try await DaemonSocket.request(
                    .revokeApproval(childID: child, handles: handles), daemon: "parent-device", path: options.socket)
                guard case .handlesRevoked(let removed) = reply else {
                    throw CommandFailure("parent-device gave an unexpected reply")
                }
                notApproved = handles.filter { !removed.contains($0) }
                if !json, !removed.isEmpty {
                    print(
                        "Revoked for \(child): \(removed.map { ShortText.escaped($0.description) }.joined(separator: ", "))"
                    )
                }
            }
            let reply = try await DaemonSocket.request(
                .listApproved(childID: child), daemon: "parent-device", path: options.socket)
            guard case .approvedList(_, let approvals, let complete) = reply else {
                throw CommandFailure("parent-device gave an unexpected reply")
            }
            if json {
                for approval in approvals { print(Self.json(approval)) }
                return
            }
            if approvals.isEmpty { print("Nothing is approved for \(child).") }
            for approval in approvals { print(Self.line(approval, child: child)) }
            if !complete { print("(more than fit in one reply: revoke some to see the rest)") }
            // Revoking what was never approved changed nothing: said, and the exit status tells a script.
            if !notApproved.isEmpty {
                let listed = notApproved.map { ShortText.escaped($0.description) }.joined(separator: ", ")
                FileHandle.standardError.write(Data("Not approved for \(child), nothing to revoke: \(listed)\n".utf8))
                throw ExitCode.failure
            }
        }

        static func line(_ approval: Approval, child: MemberID) -> String {
            let who =
                approval.inPerson ? "approved in person" : "approved by \(approval.approvedBy ?? "a parent")"
            let when = approval.approvedAt.map { " at \($0.formatted(.iso8601))" } ?? ""
            let handle = ShortText.escaped(approval.handle.description)
            return "\(handle)  \(who)\(when)  (hearthctl parent approved \(child) --revoke \(handle))"
        }

        static func json(_ approval: Approval) -> String {
            var object: [String: Any] = ["handle": approval.handle.description, "inPerson": approval.inPerson]
            object["question"] = approval.questionID?.uuidString.lowercased()
            object["approvedBy"] = approval.approvedBy
            object["approvedAt"] = approval.approvedAt.map { $0.formatted(.iso8601) }
            return Parent.jsonLine(object)
        }
    }
}
