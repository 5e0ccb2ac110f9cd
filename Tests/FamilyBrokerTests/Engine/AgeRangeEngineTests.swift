import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Declared Age Range at the broker: validation, the range and its declaration, sharing settings, prompts.
@Suite("BrokerEngine age range")
struct AgeRangeEngineTests {
    @Test(
        arguments: [
            ([], "names 1 to 3 age gates, this one names 0"),
            ([10, 13, 16, 18], "names 1 to 3 age gates, this one names 4"),
            ([16, 13], "strictly ascending order, got 16, 13"),
            ([13, 13], "strictly ascending order"),
            ([13, 14], "at least 2 years; 13...13 spans 1"),
            ([1], "age gate 1 is outside 2...99"),
            ([100], "age gate 100 is outside 2...99"),
        ] as [([Int], String)])
    func invalidGatesNameTheRuleAndStoreNothing(gates: [Int], rule: String) async throws {
        try await AgeFamily.with { broker in
            try await broker.setSharing(.always, of: "kid", by: "mum")
            let outcome = try await broker.request(gates, from: "kid")
            let error = try #require(outcome.reply.errorReply, "\(outcome.reply)")
            #expect(error.code == .invalidAgeRequest)
            #expect(error.message.contains(rule), "\(error.message)")
            #expect(outcome.events.isEmpty)
            #expect(
                try await broker.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM age_cache") } == 0)
        }
    }

    @Test(arguments: StorageBackend.all)
    func rangeIsTheNextGateMinusOneWithApplesDeclarationRules(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            for member in ["kid", "teen"] { try await broker.setSharing(.always, of: member, by: "mum") }
            try await broker.setSharing(.always, of: "free", by: "zed")
            for member in ["gran", "solo"] { try await broker.setSharing(.always, of: member, by: member) }
            // 2025-06-15: kid 12, teen 15, free 10, gran 75, loner 15, solo 35.
            #expect(
                try await broker.request([13, 16], from: "kid").reply.sharedRange
                    == range(nil, 12, .guardianDeclared, limits: true))
            #expect(
                try await broker.request([13, 16], from: "teen").reply.sharedRange
                    == range(13, 15, .guardianDeclared, limits: true))
            #expect(
                try await broker.request([13, 16], from: "free").reply.sharedRange
                    == range(nil, 12, .guardianDeclared, limits: false))
            #expect(
                try await broker.request([13, 16], from: "gran").reply.sharedRange == range(16, nil, .selfDeclared))
            // A teen in no family has no parent to choose a setting (Ask First stays), declares for themself, and has no
            // Communication Limits to report.
            let prompt = try #require(try await broker.request([13, 16], from: "loner").reply.prompt)
            #expect(
                try await broker.age(.answerPrompt(id: prompt.id, share: true), from: "loner").reply
                    == .ageRange(.promptAnswered(id: prompt.id, .sharing(range(13, 15, .selfDeclared)))))
            #expect(
                try await broker.request([10, 13, 16], from: "solo", app: "other").reply.sharedRange
                    == range(16, nil, .selfDeclared))
        }
    }

    @Test(arguments: StorageBackend.all)
    func communicationLimitsShowOnlyWhenTheUpperBoundIsBelowMajority(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            try await broker.setSharing(.always, of: "teen", by: "mum")
            // teen is 15: under gates 13, 16 the range 13-15 is below 18; under gate 13 the range is "13 or over".
            #expect(
                try await broker.request([13, 16], from: "teen", app: "a").reply.sharedRange?.parentalControls
                    == .communicationLimits)
            #expect(
                try await broker.request([13], from: "teen", app: "b").reply.sharedRange
                    == range(13, nil, .guardianDeclared))
        }
    }

    @Test(arguments: StorageBackend.all)
    func gatesAtOrAboveTheAgeOfMajorityBecomeIt(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            for member in ["gran", "miss"] { try await broker.setSharing(.always, of: member, by: member) }
            try await broker.setSharing(.always, of: "teen", by: "dad")
            // US, majority 18: 21 becomes 18, so an adult is "18 or over", never "21 or over".
            #expect(
                try await broker.request([13, 21], from: "gran", app: "a").reply.sharedRange
                    == range(18, nil, .selfDeclared))
            #expect(
                try await broker.request([16, 25], from: "teen", app: "a").reply.sharedRange
                    == range(nil, 15, .guardianDeclared, limits: true))
            // 17 and 20: 20 would become 18, leaving a 1-year range 17-17, so it is dropped.
            #expect(
                try await broker.request([17, 20], from: "gran", app: "b").reply.sharedRange
                    == range(17, nil, .selfDeclared))
            // US-MS, majority 21: the same gates reach further (miss is 22; gran in the US stops at 18).
            #expect(
                try await broker.request([16, 25], from: "gran", app: "c").reply.sharedRange
                    == range(18, nil, .selfDeclared))
            #expect(
                try await broker.request([16, 25], from: "miss", app: "b").reply.sharedRange
                    == range(21, nil, .selfDeclared))
            #expect(
                try await broker.request([16, 20], from: "miss", app: "a").reply.sharedRange
                    == range(20, nil, .selfDeclared))
        }
    }

    @Test(arguments: StorageBackend.all)
    func noBirthDateMeansNoAccountToShare(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            try await broker.setSharing(.always, of: "nodate", by: "zed")
            let outcome = try await broker.request([13], from: "nodate")
            #expect(outcome.reply.errorCode == .ageNotDeclared)
            #expect(outcome.events.isEmpty)
        }
    }

    @Test(arguments: StorageBackend.all)
    func neverShareDeclinesWithoutAPrompt(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            #expect(
                try await broker.setSharing(.never, of: "kid", by: "mum").reply
                    == .ageRange(.sharingSet(member: "kid", .never)))
            let outcome = try await broker.request([13, 16], from: "kid")
            #expect(outcome.reply.ageResult == .declined(.neverShare))
            #expect(outcome.events.isEmpty)
        }
    }

    @Test(arguments: StorageBackend.all)
    func askFirstPromptsTheMembersOwnDevicesOnceAndRemembersTheAnswerForAllOfThem(
        _ backend: StorageBackend
    ) async throws {
        try await AgeFamily.with(backend) { broker in
            // Ask First is the default.
            let first = try await broker.request([13, 16], from: "kid")
            let prompt = try #require(first.reply.prompt, "\(first.reply)")
            #expect(prompt.milliseconds == 60_000)
            #expect(first.events.recipients == ["kid"])
            guard case .promptOpened(let opened)? = first.events.first?.body.ageEvent else {
                Issue.record("no prompt event: \(first.events)")
                return
            }
            #expect(opened.id == prompt.id && opened.app == "com.example.app" && opened.gates == [13, 16])
            #expect(opened.range == range(nil, 12, .guardianDeclared, limits: true))

            // Asking again while the user decides (from the other device too) gets the same prompt.
            let again = try await broker.request([13, 16], from: "kid", device: 2)
            #expect(again.reply.prompt?.id == prompt.id)
            #expect(again.events.isEmpty)

            // Only the member answers their prompt: a parent gets the reply a missing prompt gets.
            #expect(
                try await broker.age(.answerPrompt(id: prompt.id, share: true), from: "mum").reply.errorCode
                    == .notFound)
            #expect(
                try await broker.age(.answerPrompt(id: UUID(), share: true), from: "kid").reply.errorCode == .notFound)

            let answered = try await broker.age(.answerPrompt(id: prompt.id, share: true), from: "kid", device: 2)
            let shared = AgeRangeAnswer.sharing(range(nil, 12, .guardianDeclared, limits: true))
            #expect(answered.reply == .ageRange(.promptAnswered(id: prompt.id, shared)))
            #expect(
                answered.events.map(\.body) == [
                    .ageRange(.promptClosed(id: prompt.id, app: "com.example.app", shared)),
                    .ageRange(.answerChanged(app: "com.example.app", shared)),
                ])
            #expect(
                try await broker.age(.answerPrompt(id: prompt.id, share: false), from: "kid").reply.errorCode
                    == .alreadyAnswered)

            // Remembered per (member, app), whichever device asks: no new prompt.
            for device in [1, 2] {
                let cached = try await broker.request([13, 16], from: "kid", device: device)
                #expect(cached.reply.ageResult == shared)
                #expect(cached.events.isEmpty)
            }
            // Another app is asked about separately.
            #expect(try await broker.request([13, 16], from: "kid", app: "com.other").reply.prompt != nil)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aDeclineIsRememberedUntilTheAnniversary(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            let prompt = try #require(try await broker.request([13], from: "kid").reply.prompt)
            let declined = try await broker.age(.answerPrompt(id: prompt.id, share: false), from: "kid")
            #expect(declined.reply == .ageRange(.promptAnswered(id: prompt.id, .declined(.userDeclined))))
            #expect(
                declined.events.map(\.body).contains(
                    .ageRange(.answerChanged(app: "com.example.app", .declined(.userDeclined)))))

            broker.clock.set("2026-06-14")
            let still = try await broker.request([13], from: "kid")
            #expect(still.reply.ageResult == .declined(.userDeclined))
            #expect(still.events.isEmpty)

            broker.clock.set("2026-06-15")
            let anniversary = try await broker.request([13], from: "kid")
            let next = try #require(anniversary.reply.prompt, "\(anniversary.reply)")
            #expect(
                anniversary.events.map(\.body.ageEvent).contains {
                    if case .promptOpened(let p)? = $0 { p.range == range(13, nil, .guardianDeclared) } else { false }
                })
            #expect(next.id != prompt.id)
        }
    }

    @Test(arguments: StorageBackend.all)
    func anUnansweredPromptDeclinesAtItsTimeoutAndIsNotRemembered(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            let prompt = try #require(try await broker.request([13], from: "kid").reply.prompt)
            broker.clock.advance(by: 59)
            #expect(try await broker.tick().events.isEmpty)
            broker.clock.advance(by: 2)
            let tick = try await broker.tick()
            #expect(
                tick.events.map(\.body) == [
                    .ageRange(.promptClosed(id: prompt.id, app: "com.example.app", .declined(.promptTimedOut)))
                ])
            #expect(tick.events.recipients == ["kid"])
            #expect(
                try await broker.age(.answerPrompt(id: prompt.id, share: true), from: "kid").reply.errorCode == .expired
            )
            // The user was not there: the next request asks again.
            let next = try #require(try await broker.request([13], from: "kid").reply.prompt)
            #expect(next.id != prompt.id)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aPromptAnsweredAfterItsDeadlineIsExpiredEvenBeforeTheSweepRan(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            let prompt = try #require(try await broker.request([13], from: "kid").reply.prompt)
            broker.clock.advance(by: 61)
            let late = try await broker.age(.answerPrompt(id: prompt.id, share: true), from: "kid")
            #expect(late.reply.errorCode == .expired)
            #expect(late.events.isEmpty)
            // The sweep closes it, once.
            #expect(
                try await broker.tick().events.map(\.body) == [
                    .ageRange(.promptClosed(id: prompt.id, app: "com.example.app", .declined(.promptTimedOut)))
                ])
            #expect(try await broker.tick().events.isEmpty)
        }
    }

    @Test func sharingIsSetByAParentForAChildAndByAnAdultForThemself() async throws {
        try await AgeFamily.with { broker in
            let allowed: [(MemberID, MemberID)] = [("kid", "mum"), ("kid", "dad"), ("gran", "gran"), ("solo", "solo")]
            for (target, caller) in allowed {
                #expect(
                    try await broker.setSharing(.always, of: target, by: caller).reply
                        == .ageRange(.sharingSet(member: target, .always)), "\(caller) → \(target)")
            }
            let refused: [(MemberID, MemberID, ErrorCode)] = [
                ("teen", "gran", .notAuthorized),  // an adult of the family is not a parent
                ("teen", "zed", .notFound),  // a parent of another family: as for a member who does not exist
                ("teen", "teen", .notAuthorized),  // a child does not choose
                ("teen", "kid", .notAuthorized),
                ("gran", "mum", .notAuthorized),  // an adult chooses for themself
                ("loner", "mum", .notFound),  // a child in no family is a stranger to every parent
                ("ghost", "mum", .notFound),
            ]
            for (target, caller, code) in refused {
                let outcome = try await broker.setSharing(.never, of: target, by: caller)
                #expect(outcome.reply.errorCode == code, "\(caller) → \(target): \(outcome.reply)")
            }
            // Nothing changed for the refused: teen still gets the default, Ask First.
            #expect(try await broker.request([13], from: "teen").reply.prompt != nil)
            let stored = try await broker.store.read { db in
                try String.fetchAll(db, sql: "SELECT member_id || ':' || setting FROM age_sharing ORDER BY 1")
            }
            #expect(stored == ["gran:1", "kid:1", "solo:1"])
        }
    }

    @Test(arguments: StorageBackend.all)
    func clearingOneAppsCacheRevealsTheCurrentRangeOnItsNextRequest(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            try await broker.setSharing(.always, of: "kid", by: "mum")
            #expect(try await broker.request([13], from: "kid").reply.sharedRange?.upperBound == 12)
            #expect(try await broker.request([13], from: "kid", app: "other").reply.sharedRange?.upperBound == 12)
            broker.clock.set("2025-09-02")  // 13 since yesterday
            #expect(try await broker.request([13], from: "kid").reply.sharedRange?.upperBound == 12)

            // A parent clearing "their" cache clears their own (member, app), not the child's.
            #expect(
                try await broker.age(.clearCache(app: "com.example.app"), from: "mum").reply
                    == .ageRange(.cacheCleared(app: "com.example.app", existed: false)))
            #expect(
                try await broker.age(.clearCache(app: "com.example.app"), from: "kid", device: 2).reply
                    == .ageRange(.cacheCleared(app: "com.example.app", existed: true)))
            let fresh = try await broker.request([13], from: "kid")
            #expect(fresh.reply.sharedRange == range(13, nil, .guardianDeclared))
            #expect(
                fresh.events.map(\.body) == [
                    .ageRange(.answerChanged(app: "com.example.app", .sharing(range(13, nil, .guardianDeclared))))
                ])
            // The other app keeps what it was told.
            #expect(try await broker.request([13], from: "kid", app: "other").reply.sharedRange?.upperBound == 12)
        }
    }

    @Test(arguments: StorageBackend.all)
    func theBirthDateNeverLeavesTheBroker(_ backend: StorageBackend) async throws {
        try await AgeFamily.with(backend) { broker in
            var frames: [[UInt8]] = []
            func record(_ outcome: Outcome) {
                frames.append(MessageCodec.encode(outcome.reply))
                frames += outcome.events.map { MessageCodec.encode(.event($0)) }
            }
            record(try await broker.setSharing(.askFirst, of: "kid", by: "mum"))
            let prompted = try await broker.request([13, 16], from: "kid")
            record(prompted)
            record(
                try await broker.age(
                    .answerPrompt(id: try #require(prompted.reply.prompt?.id), share: true), from: "kid"))
            record(try await broker.request([5, 9, 11], from: "kid", app: "b"))
            broker.clock.set("2026-06-15")
            record(try await broker.tick())
            let sync = try await broker.age(.request(app: "c", gates: [13]), from: "kid")
            record(sync)
            let log = try await broker.sendFrame(
                MessageCodec.encode(.sync(after: 0, limit: 1000), requestID: 9), device: "kid-1")
            frames.append(MessageCodec.encode(log.reply))
            for needle in ["2012-09-01", "2012", "20120901"] {
                for frame in frames {
                    #expect(!frame.contains(subsequence: Array(needle.utf8)), "\(needle) in a frame")
                }
            }
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
