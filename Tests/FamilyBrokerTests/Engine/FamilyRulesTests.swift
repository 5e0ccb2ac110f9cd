import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Communication Limits, contacts, downtime, passcodes, revocation, expiry and the ask limit, through the engine's
/// public entry point (`process`) on a real SQLite file.
@Suite("Family rules")
struct FamilyRulesTests {
    static let contact = handle("grandma", .phoneNumber)
    static let stranger = handle("stranger")
    static let emergency = CommunicationHandle(value: "911", kind: .phoneNumber)

    func limits(
        _ broker: BrokerHarness, of child: MemberID = "emma", by member: MemberID = "alice"
    ) async throws -> CommunicationSettings {
        let reply = try await broker.send(.getLimits(childID: child), from: member).reply
        guard case .limits(_, let settings, _) = reply else { throw Failure("getLimits → \(reply)") }
        return settings
    }

    func set(
        _ settings: CommunicationSettings, _ broker: BrokerHarness, child: MemberID = "emma",
        by member: MemberID = "alice"
    ) async throws {
        let reply = try await broker.send(.setLimits(childID: child, settings: settings), from: member).reply
        guard case .limits = reply else { throw Failure("setLimits → \(reply)") }
    }

    func known(
        _ handles: [CommunicationHandle], _ broker: BrokerHarness, child: MemberID = "emma"
    ) async throws -> Set<CommunicationHandle> {
        Set(try #require(try await broker.send(.knownHandles(handles), from: child).reply.knownHandles))
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ text: String) { description = text }
    }

    @Test(arguments: StorageBackend.all)
    func aNewChildGetsTheAgeAppropriateDefaults(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            // Emma is 11 on the test clock's day: contacts only, no contact editing.
            let emma = try await limits(broker)
            #expect(emma == ChildDefaults.builtIn.settings(forAge: 11))
            #expect(emma.enabled && emma.screenTime == .contactsOnly && !emma.allowContactEditing)
            // A teen gets contacts and groups, and may edit contacts.
            #expect(ChildDefaults.builtIn.settings(forAge: 15).screenTime == .contactsAndGroups)
            #expect(ChildDefaults.builtIn.settings(forAge: 15).allowContactEditing)
            // Tim's entry turned limits off.
            #expect(try await limits(broker, of: "tim").enabled == false)
        }
    }

    @Test(arguments: StorageBackend.all)
    func onlyTheFamilysOrganizerAndGuardiansChangeLimitsAndNothingChangesOtherwise(
        _ backend: StorageBackend
    ) async throws {
        try await BrokerHarness.with(backend) { broker in
            let before = try await limits(broker)
            let everyone = CommunicationSettings(enabled: true, screenTime: .everyone)
            let refusals: [(MemberID, ErrorCode)] = [
                ("emma", .notAuthorized), ("carol", .notAuthorized), ("tim", .notAuthorized),
                ("zed", .notFound), ("yuri", .notAuthorized), ("nora", .notAuthorized),
            ]
            let fingerprint = try await broker.fingerprint()
            for (caller, code) in refusals {
                #expect(
                    try await broker.send(.setLimits(childID: "emma", settings: everyone), from: caller).reply.errorCode
                        == code, "\(caller)")
                #expect(
                    try await broker.send(.setPasscode(childID: "emma", passcode: "9999"), from: caller).reply.errorCode
                        == code, "\(caller)")
                #expect(
                    try await broker.send(.revokeApproval(childID: "emma", handles: [Self.stranger]), from: caller)
                        .reply.errorCode == code, "\(caller)")
            }
            #expect(try await limits(broker) == before)
            #expect(try await broker.fingerprint() == fingerprint)
            // The child reads its own limits; another child, an adult or another family does not.
            #expect(try await limits(broker, by: "emma") == before)
            #expect(try await broker.send(.getLimits(childID: "emma"), from: "yuri").reply.errorCode == .notAuthorized)
            #expect(try await broker.send(.getLimits(childID: "emma"), from: "zed").reply.errorCode == .notFound)
            // An adult has no limits to set.
            #expect(
                try await broker.send(.setLimits(childID: "carol", settings: everyone), from: "alice").reply.errorCode
                    == .notFound)
            // The guardian and the organizer may.
            try await set(everyone, broker, by: "bob")
            #expect(try await limits(broker).screenTime == .everyone)
            try await set(before, broker, by: "alice")
            #expect(try await limits(broker) == before)
        }
    }

    @Test(arguments: StorageBackend.all)
    func knownHandlesFollowTheScopeInForce(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let add = try await broker.send(
                .editContacts(childID: "emma", add: [Contact(handle: Self.contact)], remove: []), from: "alice")
            #expect(add.events.of("emma").compactMap(\.body.handlesChange).first?.added == [Self.contact])
            var settings = try await limits(broker)

            settings.screenTime = .contactsOnly
            try await set(settings, broker)
            #expect(
                try await known([Self.contact, Self.stranger, Self.emergency], broker) == [
                    Self.contact, Self.emergency,
                ])

            // Contacts and groups: a group with at least one contact is known as a whole; a stranger alone is not.
            settings.screenTime = .contactsAndGroups
            try await set(settings, broker)
            #expect(try await known([Self.contact, Self.stranger], broker) == [Self.contact, Self.stranger])
            #expect(try await known([Self.stranger], broker).isEmpty)
            #expect(try await known([Self.stranger, handle("other")], broker).isEmpty)
            #expect(
                try await known([Self.emergency, Self.stranger], broker) == [Self.emergency],
                "an emergency number vouches for nobody")

            settings.screenTime = .everyone
            try await set(settings, broker)
            #expect(try await known([Self.stranger], broker) == [Self.stranger])

            // An approved handle counts as a contact.
            settings.screenTime = .contactsOnly
            try await set(settings, broker)
            let asked = try #require(try await broker.ask(question(["pal"])).reply.accepted)
            #expect(
                try await broker.answer(asked.asked.question.id, "approve", from: "bob").reply.answerResolution != nil)
            #expect(try await known([handle("pal"), Self.stranger], broker) == [handle("pal")])
        }
    }

    @Test(arguments: StorageBackend.all)
    func downtimeAppliesItsOwnScopeInTheChildsTimeZone(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            // The test clock is 15:06 UTC; a window 15:00-16:00 is in force.
            let special = handle("dad-work", .phoneNumber)
            _ = try await broker.send(
                .editContacts(
                    childID: "emma",
                    add: [Contact(handle: Self.contact), Contact(handle: special, allowedDuringDowntime: true)],
                    remove: []), from: "alice")
            var settings = try await limits(broker)
            settings.screenTime = .everyone
            settings.downtime = .specificContacts
            settings.downtimeSchedule = .init(text: "15:00-16:00")
            try await set(settings, broker)
            #expect(
                try await known([Self.contact, special, Self.stranger, Self.emergency], broker) == [
                    special, Self.emergency,
                ])
            // Outside the window, the Screen Time scope applies again.
            broker.clock.advance(by: 3600)
            #expect(
                try await known([Self.contact, special, Self.stranger], broker) == [
                    Self.contact, special, Self.stranger,
                ])
            // A window spanning midnight.
            #expect(CommunicationSettings.Downtime(text: "22:00-07:00")!.contains(minute: 23 * 60))
            #expect(CommunicationSettings.Downtime(text: "22:00-07:00")!.contains(minute: 6 * 60 + 59))
            #expect(!CommunicationSettings.Downtime(text: "22:00-07:00")!.contains(minute: 7 * 60))
        }
    }

    @Test(arguments: StorageBackend.all)
    func limitsTurnedOffGiveTheDefaultResponseAndAskNobody(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            var settings = try await limits(broker)
            settings.enabled = false
            try await set(settings, broker, by: "bob")
            let outcome = try await broker.ask(question(["newfriend"]))
            #expect(outcome.reply.accepted?.resolution?.reason == .defaultLimitsOff)
            #expect(outcome.events.recipients == ["emma"])
        }
    }

    @Test(arguments: StorageBackend.all)
    func aChildEditsContactsOnlyWhenAllowedAndNeverForDowntime(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let friend = Contact(handle: handle("friend"))
            #expect(
                try await broker.send(.editContacts(childID: "emma", add: [friend], remove: []), from: "emma").reply
                    .errorCode == .notAuthorized)
            var settings = try await limits(broker)
            settings.allowContactEditing = true
            try await set(settings, broker)
            guard
                case .limits(_, _, let contacts) = try await broker.send(
                    .editContacts(childID: "emma", add: [friend], remove: []), from: "emma"
                ).reply
            else {
                Issue.record("the child could not add a contact once allowed")
                return
            }
            #expect(contacts == [friend])
            let downtime = Contact(handle: handle("late-friend"), allowedDuringDowntime: true)
            #expect(
                try await broker.send(.editContacts(childID: "emma", add: [downtime], remove: []), from: "emma").reply
                    .errorCode == .notAuthorized)
            #expect(
                try await broker.send(
                    .editContacts(childID: "emma", add: [friend], remove: [friend.handle]), from: "alice"
                ).reply.errorCode == .invalidRequest)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aParentRevokesAnApprovalAndTheChildsDevicesLearnIt(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let asked = try #require(try await broker.ask(question(["pal"])).reply.accepted)
            _ = try await broker.answer(asked.asked.question.id, "approve", from: "alice")
            #expect(try await known([handle("pal")], broker) == [handle("pal")])
            let outcome = try await broker.send(
                .revokeApproval(childID: "emma", handles: [handle("pal"), Self.stranger]), from: "bob")
            #expect(outcome.reply == .handlesRevoked([handle("pal")]))
            // The child's devices learn the handle is gone; the parents' logs get the history entry (who revoked what).
            #expect(outcome.events.recipients == ["emma", "alice", "bob"])
            #expect(outcome.events.of("alice").first?.body.historyEntry?.kind == .approvalRevoked)
            #expect(outcome.events.first?.body.handlesChange?.removed == [handle("pal")])
            #expect(try await known([handle("pal")], broker).isEmpty)
            // Asking again goes to the parents again.
            let again = try await broker.ask(question(["pal"]))
            #expect(again.reply.accepted?.resolution == nil)
            #expect(again.events.recipients == ["emma", "alice", "bob"])
        }
    }

    /// Declining in person takes the same passcode with the same count: wrong declines lock approving too, and the
    /// right passcode declines with the denial choice, told to the child's devices and both parents.
    @Test func declineInPersonSharesTheApprovalsPasscodeCountAndLockout() async throws {
        try await BrokerHarness.with { broker in
            #expect(try await broker.send(.setPasscode(childID: "emma", passcode: "2468"), from: "alice").reply == .ok)
            let id = try #require(try await broker.ask(question(["pal"])).reply.accepted).asked.question.id
            // Her tablet negotiates version 4, so its reply names the decline (an older one reads a parent's answer).
            _ = try await broker.send(.hello(minVersion: 1, maxVersion: Wire.highestVersion), from: "emma")
            #expect(
                try await broker.send(.declineInPerson(questionID: id, passcode: "2468"), from: "alice").reply.errorCode
                    == .notAuthorized)
            for attempt in 1...4 {
                #expect(
                    try await broker.send(.declineInPerson(questionID: id, passcode: "0000"), from: "emma").reply
                        .errorCode == .wrongPasscode, "\(attempt)")
            }
            #expect(
                try await broker.send(.approveInPerson(questionID: id, passcode: "0000"), from: "emma").reply.errorCode
                    == .lockedOut)
            #expect(
                try await broker.send(.declineInPerson(questionID: id, passcode: "2468"), from: "emma").reply.errorCode
                    == .lockedOut)
            broker.clock.advance(by: 61)
            let outcome = try await broker.send(.declineInPerson(questionID: id, passcode: "2468"), from: "emma")
            let resolution = try #require(outcome.reply.answerResolution)
            #expect(resolution.reason == .declinedInPerson && resolution.choice.answer == .denial)
            #expect(resolution.answeredBy == nil)
            #expect(outcome.events.recipients == ["emma", "alice", "bob"])
            #expect(try await known([handle("pal")], broker).isEmpty)
            #expect(
                try await broker.send(.approveInPerson(questionID: id, passcode: "2468"), from: "emma").reply.errorCode
                    == .alreadyAnswered)
        }
    }

    @Test func theApproveInPersonPasscodeIsHashedLimitedAndLocksOut() async throws {
        try await BrokerHarness.with { broker in
            #expect(
                try await broker.send(.setPasscode(childID: "emma", passcode: "12"), from: "alice").reply.errorCode
                    == .invalidRequest)
            #expect(try await broker.send(.setPasscode(childID: "emma", passcode: "2468"), from: "alice").reply == .ok)
            let stored = try #require(
                try await broker.store.read { db in try BrokerStore.passcode(of: "emma", in: db) })
            #expect(stored.hash.hasPrefix("scrypt$") && !stored.hash.contains("2468"))

            let asked = try #require(try await broker.ask(question(["pal"])).reply.accepted).asked
            let id = asked.question.id
            // Typed on a parent's device: refused.
            #expect(
                try await broker.send(.approveInPerson(questionID: id, passcode: "2468"), from: "alice").reply.errorCode
                    == .notAuthorized)
            for attempt in 1...4 {
                #expect(
                    try await broker.send(.approveInPerson(questionID: id, passcode: "0000"), from: "emma").reply
                        .errorCode == .wrongPasscode, "\(attempt)")
            }
            #expect(
                try await broker.send(.approveInPerson(questionID: id, passcode: "0000"), from: "emma").reply.errorCode
                    == .lockedOut)
            // Locked: even the right passcode waits.
            #expect(
                try await broker.send(.approveInPerson(questionID: id, passcode: "2468"), from: "emma").reply.errorCode
                    == .lockedOut)
            broker.clock.advance(by: 61)
            // One more wrong one doubles the lockout.
            let doubled = try await broker.send(.approveInPerson(questionID: id, passcode: "1111"), from: "emma").reply
            #expect(doubled.errorReply?.message.contains("120 s") == true, "\(doubled)")
            broker.clock.advance(by: 121)
            let outcome = try await broker.send(.approveInPerson(questionID: id, passcode: "2468"), from: "emma")
            let resolution = try #require(outcome.reply.answerResolution)
            #expect(resolution.reason == .approvedInPerson && resolution.choice.answer == .approval)
            #expect(outcome.events.recipients == ["emma", "alice", "bob"])
            #expect(try await known([handle("pal")], broker) == [handle("pal")])
            #expect(try await broker.answer(id, "decline", from: "bob").reply.errorCode == .alreadyAnswered)
        }
    }

    @Test(arguments: StorageBackend.all)
    func anExpiredQuestionResolvesWithItsDefaultAndNobodyCanAnswerIt(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let expiring = question(["pal"], expirationDate: broker.clock.now.addingTimeInterval(60))
            let id = try #require(try await broker.ask(expiring).reply.accepted).asked.question.id
            broker.clock.advance(by: 61)
            // Past the date, before the sweep: the answer is refused as expired.
            #expect(try await broker.answer(id, "approve", from: "alice").reply.errorCode == .expired)
            let swept = try await broker.engine.expireQuestions()
            #expect(swept.events.recipients == ["emma", "alice", "bob"])
            let resolution = try #require(swept.events.of("emma").first?.body.resolved?.resolution)
            #expect(resolution.reason == .expired && resolution.choice == .decline)
            // After the sweep too: refused as expired, not as answered.
            let late = try await broker.answer(id, "approve", from: "alice").reply.errorReply
            #expect(
                late?.code == .expired && late?.message.contains("expired unanswered") == true,
                "\(String(describing: late))")
            #expect(try await broker.engine.expireQuestions().events.isEmpty, "a question expires once")
        }
    }

    @Test func aChildsAsksAreRateLimited() async throws {
        var policy = BrokerHarness.policy
        policy.childDefaults.askLimit = .init(count: 3, perSeconds: 60)
        let broker = try await BrokerHarness(policy: policy)
        defer { broker.temp.remove() }
        for n in 0..<3 { #expect(try await broker.ask(question(["p\(n)"])).reply.accepted != nil) }
        let refused = try await broker.ask(question(["p3"]))
        #expect(refused.reply.errorCode == .rateLimited)
        #expect(refused.reply.errorReply?.message.contains("at most 3") == true)
        #expect(refused.events.isEmpty)
        broker.clock.advance(by: 61)
        #expect(try await broker.ask(question(["p3"])).reply.accepted != nil)
    }
}
