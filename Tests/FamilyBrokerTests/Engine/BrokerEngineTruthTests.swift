import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The broker holds every question to the text rule and to choices that mean what they say, for a device that
/// skips PermissionKit's checks: refused by name, nothing stored, nobody told.
@Suite("BrokerEngine text rule and choices")
struct BrokerEngineTruthTests {
    @Test(arguments: StorageBackend.all)
    func aDeclineThatApprovesIsRefusedNamingTheChoice(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let before = try await broker.fingerprint()
            let disguised = PermissionChoice(id: "decline", title: "Decline", answer: .approval)
            let no = PermissionChoice(id: "no", title: "No", answer: .denial)
            let swapped = [
                PermissionChoice(id: "approve", title: "Approve", answer: .denial),
                PermissionChoice(id: "ok", title: "OK", answer: .approval),
            ]
            for (choices, defaultID, index) in [([no, disguised], "no", 1), (swapped, "approve", 0)] {
                let outcome = try await broker.ask(question(["sam"], choices: choices, defaultChoiceID: defaultID))
                let error = try #require(outcome.reply.errorReply, "\(outcome.reply)")
                #expect(error.code == .misleadingChoice)
                #expect(error.message.hasPrefix("question.choices[\(index)]: "), "\(error.message)")
                #expect(outcome.events.isEmpty)
            }
            #expect(try await broker.fingerprint() == before)
            // An app's own wording is fine as long as the answer matches it.
            let own = [
                PermissionChoice(id: "week", title: "Allow for a week", answer: .approval),
                PermissionChoice(id: "decline", title: "Not now", answer: .denial),
            ]
            #expect(try await broker.ask(question(["sam"], choices: own)).reply.accepted != nil)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aHandleOrNameInDisguiseIsRefusedByName(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let before = try await broker.fingerprint()
            for value in ["stranger\u{1B}[2K\rgrandma@family.example", "evil\u{202E}moc.elpmaxe@amdnarg"] {
                let outcome = try await broker.ask(question([value]))
                let error = try #require(outcome.reply.errorReply, "\(outcome.reply)")
                #expect(error.code == .invalidText)
                #expect(error.message.hasPrefix("topic.personInformation[0].handle.value: "), "\(error.message)")
                #expect(outcome.events.isEmpty)
            }
            var titled = question(["sam"])
            titled.choices[0].title = "Approve\u{1B}]8;;https://evil.example\u{7}"
            let title = try await broker.ask(titled)
            #expect(title.reply.errorReply?.message.hasPrefix("question.choices[0].title: ") == true)
            // A contact a child (or a parent) adds reaches every guardian's history: the same rule.
            let contact = try await broker.send(
                .editContacts(
                    childID: "emma", add: [Contact(handle: handle("gran\u{202E}ma"))], remove: []),
                from: "alice")
            #expect(contact.reply.errorReply?.code == .invalidText)
            #expect(contact.reply.errorReply?.message.hasPrefix("editContacts.add[0].value: ") == true)
            #expect(try await broker.fingerprint() == before)
        }
    }
}
