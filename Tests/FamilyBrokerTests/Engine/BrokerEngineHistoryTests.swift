import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The family's history kept by the broker: every decision, expiry, withdrawal and settings change is stored in the
/// transaction that makes it, each guardian reads the same pages, settings changes reach every guardian's log, and a
/// bad request gets a typed error and learns nothing.
@Suite("BrokerEngine history")
struct BrokerEngineHistoryTests {
    @Test(arguments: StorageBackend.all)
    func decisionsExpiriesAndWithdrawalsAreRecorded(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let declined = question(["sam"])
            _ = try await broker.ask(declined)
            broker.clock.advance(by: 10)
            let answer = try await broker.send(
                .answer(questionID: declined.id, choiceID: "decline", message: "not yet"), from: "bob")
            #expect(answer.reply.answerResolution != nil, "\(answer.reply)")
            // A decision reaches the guardians as `questionResolved`, not twice.
            #expect(!answer.events.contains { $0.body.historyEntry != nil })

            let expiring = question(["lee"], expirationDate: broker.clock.now.addingTimeInterval(60))
            _ = try await broker.ask(expiring)
            broker.clock.advance(by: 61)
            _ = try await broker.engine.expireQuestions()

            let withdrawn = question(["kim"])
            _ = try await broker.ask(withdrawn)
            #expect(try await broker.send(.withdraw(questionID: withdrawn.id), from: "emma").reply.errorCode == nil)

            #expect(try await broker.send(.setPasscode(childID: "emma", passcode: "2468"), from: "alice").reply == .ok)
            let inPerson = question(["ola"])
            _ = try await broker.ask(inPerson)
            let approved = try await broker.send(
                .approveInPerson(questionID: inPerson.id, passcode: "2468"), from: "emma")
            #expect(approved.reply.answerResolution?.reason == .approvedInPerson)

            // Resolved at once when asked (ola is known now): nobody decided, so not in the history.
            #expect(try await broker.ask(question(["ola"])).reply.accepted?.resolution?.reason == .alreadyKnown)

            let entries = try await Self.page(broker, HistoryQuery(childID: "emma"), as: "alice").entries
            #expect(
                entries.map(\.kind) == [.answered, .expired, .withdrawn, .passcodeChanged, .approvedInPerson],
                "\(entries.map(\.summary))")
            let first = try #require(entries.first)
            #expect(first.actor == "bob" && first.deviceID == "b1" && first.questionID == declined.id)
            #expect(first.choice?.id == "decline" && first.message == "not yet")
            #expect(first.appBundleID == "com.example.chat" && first.handles == [handle("sam")])
            #expect(first.summary.contains("bob declined for emma") && first.summary.contains("not yet"))
            #expect(entries[1].actor == nil && entries[1].deviceID == nil && entries[1].choice?.id == "decline")
            #expect(entries[2].actor == "emma" && entries[2].deviceID == "e1")
            #expect(entries[4].actor == nil && entries[4].deviceID == "e1" && entries[4].choice?.id == "approve")
            #expect(entries.map(\.id) == entries.map(\.id).sorted() && Set(entries.map(\.id)).count == 5)
            // Every guardian reads the same record.
            #expect(try await Self.page(broker, HistoryQuery(childID: "emma"), as: "bob").entries == entries)
        }
    }

    @Test(arguments: StorageBackend.all)
    func settingsChangesReachEveryGuardiansLog(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            // Approved while emma's limits still ask: revoked below.
            let q = question(["pal"])
            _ = try await broker.ask(q)
            _ = try await broker.answer(q.id, "approve", from: "alice")
            let everyone = CommunicationSettings(
                enabled: true, screenTime: .everyone, downtime: .contactsOnly,
                downtimeSchedule: .init(startMinute: 1260, endMinute: 420))
            let limits = try await broker.send(.setLimits(childID: "emma", settings: everyone), from: "alice")
            let entry = try #require(limits.events.first?.body.historyEntry)
            #expect(limits.events.map(\.memberID).sorted() == ["alice", "bob"], "the parents' logs, not emma's")
            #expect(limits.events.allSatisfy { $0.body.historyEntry == entry })
            #expect(entry.kind == .limitsChanged && entry.actor == "alice" && entry.deviceID == "a1" && entry.id > 0)
            #expect(entry.summary.contains("Screen Time contactsOnly → everyone"), "\(entry.summary)")
            #expect(!entry.summary.contains("contact editing"), "only what changed: \(entry.summary)")
            let again = try await broker.send(.setLimits(childID: "emma", settings: everyone), from: "bob")
            #expect(again.events.isEmpty, "nothing changed, nothing recorded")

            let contacts = try await broker.send(
                .editContacts(
                    childID: "emma", add: [Contact(handle: handle("gran"), allowedDuringDowntime: true)], remove: []),
                from: "bob")
            let contactEntry = try #require(contacts.events.of("alice").first?.body.historyEntry)
            #expect(contactEntry.kind == .contactsChanged && contactEntry.actor == "bob")
            #expect(contactEntry.handles == [handle("gran")] && contactEntry.summary.contains("during downtime"))
            #expect(contacts.events.of("emma").first?.body.handlesChange != nil, "the child still learns the handle")

            let revoked = try await broker.send(
                .revokeApproval(childID: "emma", handles: [handle("pal"), handle("never")]), from: "bob")
            let revokedEntry = try #require(revoked.events.of("alice").first?.body.historyEntry)
            #expect(revokedEntry.kind == .approvalRevoked && revokedEntry.handles == [handle("pal")])
            let nothing = try await broker.send(
                .revokeApproval(childID: "emma", handles: [handle("never")]), from: "bob")
            #expect(nothing.events.isEmpty)

            _ = try await broker.send(.setPasscode(childID: "emma", passcode: "1357"), from: "alice")
            _ = try await broker.send(.setPasscode(childID: "emma", passcode: ""), from: "bob")
            let sharing = try await broker.send(.ageRange(.setSharing(member: "emma", .always)), from: "bob")
            #expect(sharing.events.of("alice").first?.body.historyEntry?.kind == .ageSharingChanged)

            let entries = try await Self.page(broker, HistoryQuery(childID: "emma"), as: "bob").entries
            #expect(
                entries.map(\.kind) == [
                    .answered, .limitsChanged, .contactsChanged, .approvalRevoked, .passcodeChanged, .passcodeChanged,
                    .ageSharingChanged,
                ])
            #expect(entries[4].summary.hasSuffix("alice set emma's Screen Time passcode"), "\(entries[4].summary)")
            #expect(entries[5].summary.hasSuffix("bob cleared emma's Screen Time passcode"))
            #expect(!entries.contains { $0.summary.contains("1357") }, "never the passcode itself")
            // What each guardian's log holds: the same entries as the record, settings changes only.
            let logged = try await broker.logs()["alice"]?.events.compactMap(\.body.historyEntry) ?? []
            #expect(logged == entries.filter(\.kind.isSettingsChange))
        }
    }

    @Test(arguments: StorageBackend.all)
    func aLongHistoryIsReadAPageAtATime(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            var times: [Date] = []
            for index in 0..<25 {
                broker.clock.advance(by: 60)
                times.append(broker.clock.now)
                let settings = CommunicationSettings(enabled: index % 2 == 0, screenTime: .contactsAndGroups)
                _ = try await broker.send(.setLimits(childID: "emma", settings: settings), from: "alice")
            }
            var query = HistoryQuery(childID: "emma", limit: 10)
            var pages: [[HistoryEntry]] = []
            while true {
                let (entries, next) = try await Self.page(broker, query, as: "bob")
                pages.append(entries)
                guard let next else { break }
                #expect(next == entries.last?.id)
                query.cursor = next
            }
            #expect(pages.map(\.count) == [10, 10, 5])
            let all = pages.flatMap { $0 }
            #expect(all.map(\.recordedAt) == times)

            let newest = try await Self.page(
                broker, HistoryQuery(childID: "emma", limit: 4, newestFirst: true), as: "bob")
            #expect(newest.entries.map(\.id) == Array(all.suffix(4).reversed().map(\.id)))
            let older = try await Self.page(
                broker, HistoryQuery(childID: "emma", cursor: newest.next!, limit: 4, newestFirst: true), as: "bob")
            #expect(older.entries.map(\.id) == Array(all.dropLast(4).suffix(4).reversed().map(\.id)))

            let recent = try await Self.page(broker, HistoryQuery(childID: "emma", since: times[20]), as: "alice")
            #expect(recent.entries.map(\.recordedAt) == Array(times[20...]) && recent.next == nil)
            // Asked for nothing, a page still holds one; asked for too many, at most the maximum.
            let one = try await Self.page(broker, HistoryQuery(childID: "emma", limit: 0), as: "alice")
            #expect(one.entries.count == 1 && one.next == one.entries.first?.id)
        }
    }

    @Test(arguments: StorageBackend.all)
    func badRequestsGetTypedErrorsAndLearnNothing(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            _ = try await broker.send(
                .setLimits(childID: "emma", settings: CommunicationSettings(enabled: false)), from: "alice")
            // Another family's child has a history of its own: its numbers are no cursor for emma's.
            _ = try await broker.send(
                .setLimits(childID: "yuri", settings: CommunicationSettings(enabled: false)), from: "zed")
            let yuris = try await Self.page(broker, HistoryQuery(childID: "yuri"), as: "zed").entries
            let foreign = try #require(yuris.first).id
            let before = try await broker.fingerprint()

            func code(_ query: HistoryQuery, _ caller: MemberID) async throws -> ErrorReply? {
                try await broker.send(.history(query), from: caller).reply.errorReply
            }
            #expect(try await code(HistoryQuery(childID: "emma"), "emma")?.code == .notAuthorized, "the child")
            #expect(try await code(HistoryQuery(childID: "emma"), "carol")?.code == .notAuthorized, "an adult")
            let stranger = try #require(try await code(HistoryQuery(childID: "emma"), "zed"))
            let missing = try #require(try await code(HistoryQuery(childID: "ghost"), "zed"))
            #expect(stranger.code == .notFound && missing.code == .notFound)
            #expect(
                stranger.message.replacingOccurrences(of: "emma", with: "ghost") == missing.message,
                "the same reply whether the child exists or not")
            #expect(try await code(HistoryQuery(childID: "alice"), "bob")?.code == .notFound, "not a child")
            for cursor in [foreign, 999_999, UInt64.max] {
                let error = try #require(try await code(HistoryQuery(childID: "emma", cursor: cursor), "alice"))
                #expect(error.code == .invalidCursor, "\(cursor): \(error)")
                #expect(error.message.hasPrefix("history.cursor: \(cursor) is not an entry of emma's history"))
            }
            #expect(try await broker.fingerprint() == before, "nothing changed")
        }
    }

    /// One page of `query` as `member` asked for it.
    static func page(
        _ broker: BrokerHarness, _ query: HistoryQuery, as member: MemberID,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (entries: [HistoryEntry], next: UInt64?) {
        let reply = try await broker.send(.history(query), from: member).reply
        guard case .historyPage(let child, let entries, let next) = reply else {
            Issue.record("history by \(member): \(reply)", sourceLocation: sourceLocation)
            return ([], nil)
        }
        #expect(child == query.childID, sourceLocation: sourceLocation)
        return (entries, next)
    }
}

extension Event.Body {
    var historyEntry: HistoryEntry? {
        if case .historyRecorded(let entry) = self { return entry }
        return nil
    }
}
