import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// New information is revealed only on the anniversary of the first declaration, with a controllable clock.
@Suite("BrokerEngine age range anniversaries")
struct AgeRangeAnniversaryTests {
    /// kid (born 2012-09-01) first declares on 2025-06-15 at 12; turns 13 on 2025-09-01, before the anniversary.
    @Test(arguments: StorageBackend.all)
    func aBirthdayBeforeTheAnniversaryIsRevealedOnTheAnniversary(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend, startingOn: "2025-06-15") { broker in
            try await broker.setSharing(.always, of: "kid", by: "mum")
            let under13 = range(nil, 12, .guardianDeclared, limits: true)
            let first = try await broker.request([13, 16], from: "kid")
            #expect(first.reply.sharedRange == under13)
            #expect(
                first.events.map(\.body) == [.ageRange(.answerChanged(app: "com.example.app", .sharing(under13)))],
                "first reveal notifies")

            for day in ["2025-08-31", "2025-09-01", "2025-09-02", "2026-06-14"] {
                broker.clock.set(day)
                let outcome = try await broker.request([13, 16], from: "kid")
                #expect(outcome.reply.sharedRange == under13, "\(day): still 12 or under")
                #expect(outcome.events.isEmpty, "\(day)")
            }
            broker.clock.set("2026-06-15")
            let teen = range(13, 15, .guardianDeclared, limits: true)
            let anniversary = try await broker.request([13, 16], from: "kid")
            #expect(anniversary.reply.sharedRange == teen)
            #expect(
                anniversary.events.map(\.body) == [.ageRange(.answerChanged(app: "com.example.app", .sharing(teen)))])
            broker.clock.set("2026-06-16")
            #expect(try await broker.request([13, 16], from: "kid").events.isEmpty, "revealed once")
        }
    }

    /// june (born 2012-06-20) first declares on her 12th birthday; her 13th birthday is the anniversary.
    @Test(arguments: StorageBackend.all)
    func aBirthdayOnTheAnniversaryIsRevealedThatDay(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend, startingOn: "2024-06-20") { broker in
            try await broker.setSharing(.always, of: "june", by: "dad")
            #expect(try await broker.request([13], from: "june").reply.sharedRange?.upperBound == 12)
            broker.clock.set("2025-06-19")
            #expect(try await broker.request([13], from: "june").reply.sharedRange?.upperBound == 12)
            broker.clock.set("2025-06-20")
            let outcome = try await broker.request([13], from: "june")
            #expect(outcome.reply.sharedRange == range(13, nil, .guardianDeclared))
            #expect(outcome.events.count == 1)
        }
    }

    /// kid (born 2012-09-01) first declares on 2024-08-01 at 11; the anniversary 2025-08-01 finds him 12 (nothing
    /// new under gate 13); he turns 13 on 2025-09-01, after it, and waits for 2026-08-01.
    @Test(arguments: StorageBackend.all)
    func aBirthdayAfterTheAnniversaryWaitsForTheNextOne(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend, startingOn: "2024-08-01") { broker in
            try await broker.setSharing(.always, of: "kid", by: "mum")
            #expect(try await broker.request([13], from: "kid").reply.sharedRange?.upperBound == 12)
            for day in ["2025-08-01", "2025-09-01", "2025-12-31", "2026-07-31"] {
                broker.clock.set(day)
                let outcome = try await broker.request([13], from: "kid")
                #expect(outcome.reply.sharedRange?.upperBound == 12, "\(day)")
                #expect(outcome.events.isEmpty, "\(day)")
            }
            broker.clock.set("2026-08-01")
            #expect(try await broker.request([13], from: "kid").reply.sharedRange == range(13, nil, .guardianDeclared))
        }
    }

    @Test(arguments: StorageBackend.all)
    func underAlwaysShareTheAnniversaryIsRevealedToWatchersWithoutARequest(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend, startingOn: "2025-06-15") { broker in
            try await broker.setSharing(.always, of: "kid", by: "mum")
            _ = try await broker.request([13, 16], from: "kid")
            broker.clock.set("2026-06-14")
            #expect(try await broker.tick().events.isEmpty)
            broker.clock.set("2026-06-15")
            let tick = try await broker.tick()
            let teen = range(13, 15, .guardianDeclared, limits: true)
            #expect(tick.events.map(\.body) == [.ageRange(.answerChanged(app: "com.example.app", .sharing(teen)))])
            #expect(tick.events.recipients == ["kid"])
            #expect(try await broker.tick().events.isEmpty, "reviewed once")
            #expect(try await broker.request([13, 16], from: "kid").events.isEmpty, "the request finds it revealed")
        }
    }

    @Test(arguments: StorageBackend.all)
    func underAskFirstTheAnniversaryPromptsOnTheNextRequest(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend, startingOn: "2025-06-15") { broker in
            let first = try #require(try await broker.request([13], from: "kid").reply.prompt)
            _ = try await broker.age(.answerPrompt(id: first.id, share: true), from: "kid")
            broker.clock.set("2025-09-02")
            #expect(
                try await broker.request([13], from: "kid").reply.sharedRange?.upperBound == 12,
                "no prompt before the anniversary")
            broker.clock.set("2026-06-15")
            #expect(try await broker.tick().events.isEmpty, "Ask First reveals nothing unasked")
            let next = try #require(try await broker.request([13], from: "kid").reply.prompt, "the anniversary prompts")
            let answered = try await broker.age(.answerPrompt(id: next.id, share: true), from: "kid", device: 2)
            #expect(
                answered.reply == .ageRange(.promptAnswered(id: next.id, .sharing(range(13, nil, .guardianDeclared)))))
        }
    }

    @Test func leapDayFirstDeclarationsHaveTheirAnniversaryOnTheFirstOfMarch() {
        let first = BirthDate("2024-02-29")!
        #expect(AgeRangeRules.lastAnniversary(of: first, onOrBefore: BirthDate("2025-02-28")!) == first)
        #expect(
            AgeRangeRules.lastAnniversary(of: first, onOrBefore: BirthDate("2025-03-01")!) == BirthDate("2025-03-01"))
        #expect(
            AgeRangeRules.lastAnniversary(of: first, onOrBefore: BirthDate("2028-02-29")!) == BirthDate("2028-02-29"))
        #expect(AgeRangeRules.nextAnniversary(of: first, after: first) == BirthDate("2025-03-01"))
    }
}
