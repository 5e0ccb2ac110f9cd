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
        @Flag(help: "One JSON object a line: id, child, app, askedAt, topic, people, choices (with their answers).")
        var json = false

        func run() async throws {
            let client = try await DaemonSocket.connect(daemon: "parent-device", path: options.socket)
            defer { Task { await client.close() } }
            let pending = try await Parent.pending(client)
            if json {
                for asked in pending { print(Parent.json(asked)) }
                return
            }
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
        @Option(help: "A message the child's app receives with the answer: \(ShortText.limits).")
        var message: String?

        func validate() throws { try Parent.check(message) }

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
        @Option(help: "A message the child's app receives with the answer: \(ShortText.limits).")
        var message: String?

        func validate() throws { try Parent.check(message) }

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

    /// Checked before anything is sent, so a bad message changes nothing; named as the option the user typed.
    static func check(_ message: String?) throws {
        if let message, let violation = ShortText.violation(in: message, field: "--message") {
            throw ValidationError(violation.description)
        }
    }

    static func answer(
        _ idOrPrefix: String, choice: String?, answer: PermissionChoice.Answer, message: String?, socket: String
    ) async throws {
        try check(message)
        let client = try await DaemonSocket.connect(daemon: "parent-device", path: socket)
        defer { Task { await client.close() } }
        let pending = try await pending(client)
        let questionID = try IDPrefix.resolve(
            idOrPrefix, among: pending.map(\.question.id), what: "question", hint: "see `hearthctl parent list`")
        guard let asked = pending.first(where: { $0.question.id == questionID }) else {
            throw CommandFailure("question \(questionID) is not waiting any more")
        }
        let chosen = try Parent.choice(choice, giving: answer, of: asked.question)
        do {
            guard
                case .answerAccepted(let resolution) = try await client.request(
                    .answer(questionID: questionID, choiceID: chosen.id, message: message))
            else {
                throw CommandFailure("parent-device sent an unexpected reply")
            }
            // The answer in words first, the app's title only beside it.
            let outcome = resolution.choice.outcome
            print(
                "\(outcome.prefix(1).uppercased() + outcome.dropFirst()): question \(questionID) answered"
                    + "\(resolution.answeredBy.map { " by \($0)" } ?? "").")
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw DaemonSocket.explain(error, daemon: "parent-device")
        }
    }

    /// The choice `approve` or `decline` sends: the one named by `--choice`, which must give that answer (an app's
    /// choice with the id `decline` that approves is refused), else the question's first choice giving it.
    static func choice(
        _ id: String?, giving answer: PermissionChoice.Answer, of question: Question
    ) throws -> PermissionChoice {
        let command = answer == .approval ? "approve" : "decline"
        guard let id else {
            guard let first = question.choices.first(where: { $0.answer == answer }) else {
                throw CommandFailure("question \(question.id) has no choice that gives \(answer.name)")
            }
            return first
        }
        guard let named = question.choices.first(where: { $0.id == id }) else {
            let ids = question.choices.map { ShortText.escaped($0.id) }.joined(separator: ", ")
            throw ValidationError(
                "'\(ShortText.escaped(id))' is not a choice of question \(question.id); choices: \(ids)")
        }
        guard named.answer == answer else {
            throw ValidationError(
                "choice '\(ShortText.escaped(id))' gives \(named.answer.name), not \(answer.name): use "
                    + "`hearthctl parent \(answer == .approval ? "decline" : "approve")` to give it, not `\(command)`")
        }
        return named
    }
}
