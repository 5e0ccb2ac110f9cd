import ArgumentParser
import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

struct Child: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "On a child's device: approve or decline a question in person with the passcode; see or edit the child's contacts.",
        subcommands: [ApproveInPerson.self, DeclineInPerson.self, Limits.self, Contacts.self])

    struct SocketOption: ParsableArguments {
        @Option(help: "child-device's app socket.")
        var socket = LocalEndpoints.childDeviceSocket
    }

    struct ApproveInPerson: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "approve-in-person",
            abstract: "A parent types the Screen Time passcode (standard input) to approve a question now.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The question's id (as `hearthctl app ask` printed it), or a unique prefix of it.")
        var question: String

        func run() async throws {
            try await Child.answerInPerson(question, socket: options.socket, verb: "Approved") {
                .approveInPerson(questionID: $0, passcode: $1)
            }
        }
    }

    struct DeclineInPerson: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decline-in-person",
            abstract: "A parent types the Screen Time passcode (standard input) to decline a question now.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The question's id (as `hearthctl app ask` printed it), or a unique prefix of it.")
        var question: String

        func run() async throws {
            try await Child.answerInPerson(question, socket: options.socket, verb: "Declined") {
                .declineInPerson(questionID: $0, passcode: $1)
            }
        }
    }

    /// The passcode read from standard input, sent with the question `prefix` names as `message` builds it; prints
    /// the answer's choice after `verb`.
    static func answerInPerson(
        _ prefix: String, socket: String, verb: String, _ message: (UUID, String) -> Message
    ) async throws {
        let id = try await resolve(prefix, socket: socket)
        let passcode = try SecretInput.read("Passcode")
        let reply = try await DaemonSocket.request(message(id, passcode), daemon: "child-device", path: socket)
        guard case .answerAccepted(let resolution) = reply else {
            throw CommandFailure("child-device gave an unexpected reply")
        }
        print("\(verb) in person: \(resolution.choice.title)")
    }

    /// The child's waiting question that `prefix` names, as child-device lists them (a full id is taken as is, so an
    /// older child-device that lists nothing still takes one).
    static func resolve(_ prefix: String, socket: String) async throws -> UUID {
        var waiting: [UUID] = []
        if UUID(uuidString: prefix) == nil {
            let reply = try await DaemonSocket.request(.listPending, daemon: "child-device", path: socket)
            guard case .pendingList(let list) = reply else {
                throw CommandFailure("child-device gave an unexpected reply")
            }
            waiting = list.map(\.question.id)
        }
        return try IDPrefix.resolve(
            prefix, among: waiting, what: "question", hint: "give the id `hearthctl app ask` printed")
    }

    struct Limits: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show this child's Communication Limits and contacts.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String

        func run() async throws {
            let (settings, contacts) = try await DaemonSocket.limits(
                .getLimits(childID: child), daemon: "child-device", path: options.socket)
            print(DaemonSocket.describe(settings, contacts: contacts, child: child))
        }
    }

    struct Contacts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or remove the child's own contacts, when a parent allows it.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String
        @Option(help: "A contact to add, KIND:VALUE.") var add: [String] = []
        @Option(help: "A contact to remove, KIND:VALUE.") var remove: [String] = []

        func validate() throws {
            for text in add + remove { _ = try DaemonSocket.handle(text) }
        }

        func run() async throws {
            let (settings, contacts) = try await DaemonSocket.limits(
                .editContacts(
                    childID: child, add: try add.map { Contact(handle: try DaemonSocket.handle($0)) },
                    remove: try remove.map(DaemonSocket.handle)),
                daemon: "child-device", path: options.socket)
            print(DaemonSocket.describe(settings, contacts: contacts, child: child))
        }
    }
}
