import ArgumentParser
import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

struct Parent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Act as a parent on a parent-device: questions, a child's limits and contacts, approvals, passcode.",
        subcommands: [
            List.self, Approve.self, Decline.self, Limits.self, Contacts.self, Revoke.self, Passcode.self, Watch.self,
            History.self, Approved.self,
        ])

    struct SocketOption: ParsableArguments {
        @Option(help: "parent-device's control socket.")
        var socket = LocalEndpoints.parentDeviceSocket
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the questions waiting for an answer.")
        @OptionGroup var options: SocketOption

        func run() async throws {
            let client = try await DaemonSocket.connect(daemon: "parent-device", path: options.socket)
            defer { Task { await client.close() } }
            let pending = try await Parent.pending(client)
            if pending.isEmpty {
                print("No questions are waiting.")
                return
            }
            for asked in pending { print(Parent.describe(asked)) }
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Approve a question (id or unique prefix).")
        @OptionGroup var options: SocketOption
        @Argument(help: "The question's id, or a unique prefix of it.") var question: String
        @Option(help: "The choice id (default: the question's first approving choice).") var choice: String?
        @Option(help: "A message the child's app receives with the answer (at most 280 characters).")
        var message: String?

        func run() async throws {
            try await Parent.answer(
                question, choice: choice, answer: .approval, message: message, socket: options.socket)
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decline a question (id or unique prefix).")
        @OptionGroup var options: SocketOption
        @Argument(help: "The question's id, or a unique prefix of it.") var question: String
        @Option(help: "The choice id (default: the question's first declining choice).") var choice: String?
        @Option(help: "A message the child's app receives with the answer (at most 280 characters).")
        var message: String?

        func run() async throws {
            try await Parent.answer(
                question, choice: choice, answer: .denial, message: message, socket: options.socket)
        }
    }

    static func pending(_ client: LocalClient) async throws -> [AskedQuestion] {
        do {
            guard case .pendingList(let list) = try await client.request(.listPending) else { return [] }
            return list
        } catch {
            throw DaemonSocket.explain(error, daemon: "parent-device")
        }
    }

    static func answer(
        _ idOrPrefix: String, choice: String?, answer: PermissionChoice.Answer, message: String?, socket: String
    ) async throws {
        // Checked before anything is sent, so a bad message changes nothing.
        if let message, let violation = ShortText.violation(in: message, field: "answer.message") {
            throw ValidationError("--message: \(violation.reason)")
        }
        let client = try await DaemonSocket.connect(daemon: "parent-device", path: socket)
        defer { Task { await client.close() } }
        let pending = try await pending(client)
        let questionID = try IDPrefix.resolve(
            idOrPrefix, among: pending.map(\.question.id), what: "question", listing: "hearthctl parent list")
        var choiceID = choice
        if choiceID == nil, let asked = pending.first(where: { $0.question.id == questionID }) {
            choiceID = asked.question.choices.first { $0.answer == answer }?.id
        }
        let chosen = choiceID ?? (answer == .approval ? PermissionChoice.approve.id : PermissionChoice.decline.id)
        do {
            guard
                case .answerAccepted(let resolution) = try await client.request(
                    .answer(questionID: questionID, choiceID: chosen, message: message))
            else {
                throw ValidationError("parent-device sent an unexpected reply")
            }
            print("\(resolution.choice.title): question \(questionID) answered by \(resolution.answeredBy ?? "-").")
        } catch let error as ValidationError {
            throw error
        } catch {
            throw DaemonSocket.explain(error, daemon: "parent-device")
        }
    }

    static func describe(_ asked: AskedQuestion) -> String {
        var lines = [
            "\(asked.question.id)  from \(asked.childMemberID) in \(asked.appBundleID), asked \(asked.askedAt)"
        ]
        switch asked.question.topic {
        case .communication(let topic):
            let actions = topic.actions.map { "\($0)" }.sorted().joined(separator: ", ")
            lines.append("  wants to \(actions.isEmpty ? "communicate" : actions) with:")
            for person in topic.personInformation {
                let name =
                    person.nameComponents.map { n in
                        [n.givenName, n.middleName, n.familyName].compactMap { $0 }.joined(separator: " ").isEmpty
                            ? (n.nickname ?? "")
                            : [n.givenName, n.middleName, n.familyName].compactMap { $0 }.joined(separator: " ")
                    } ?? ""
                lines.append("    \(person.handle.value) (\(person.handle.kind))\(name.isEmpty ? "" : " — \(name)")")
            }
        case .significantAppUpdate(let description):
            lines.append("  significant app update: \(description)")
        }
        if let note = asked.question.note {
            lines.append("  note: " + note.replacingOccurrences(of: "\n", with: "\n        "))
        }
        if let expiration = asked.question.expirationDate { lines.append("  expires \(expiration)") }
        lines.append("  choices: " + asked.question.choices.map { "\($0.id) (\($0.title))" }.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }
}
