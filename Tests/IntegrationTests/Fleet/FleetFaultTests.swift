import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import PermissionKit
import Testing

/// The fleet's own faults: a controllable broker clock, and cutting a device off its broker.
@Suite("Fleet faults: clock and cut", .serialized, .tags(.fleet))
struct FleetFaultTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .guardian("bob", devices: ["bob-phone"]),
                .child("emma", devices: ["emma-tablet"]),
            ])
    ])

    static func question(_ handle: String, expiresIn: TimeInterval? = nil) -> PermissionQuestion<CommunicationTopic> {
        let question = PermissionQuestion(handles: [CommunicationHandle(value: handle, kind: .custom)])
        if let expiresIn { question.expirationDate = Date().addingTimeInterval(expiresIn) }
        return question
    }

    /// Asks two questions that expire in 10 minutes; one is answered before the clock moves, the other after.
    static func expiry(in fleet: Fleet) async throws {
        let app = fleet.app("com.example.chat", on: "emma-tablet")
        let responses = AppResponses(app)
        let alice = try await fleet.parent(on: "alice-phone")
        let early = Self.question("early", expiresIn: 600)
        let late = Self.question("late", expiresIn: 600)
        try await app.ask(early)
        try await app.ask(late)
        _ = try await alice.waitForQuestion(early.id)
        _ = try await alice.waitForQuestion(late.id)
        let resolution = try await alice.approve(early.id)
        #expect(resolution.choice.answer == .approval, "not expired yet at the real time")

        try fleet.advanceClock(by: .seconds(601))
        #expect(fleet.brokerNow > late.expirationDate!)
        // Refused either way: `expired` before the broker's expiry sweep resolves the question, `alreadyAnswered`
        // naming the expiry after it.
        let error = try #require(await #expect(throws: ErrorReply.self) { try await alice.approve(late.id) })
        #expect(
            error.code == .expired || (error.code == .alreadyAnswered && error.message.contains("expired")), "\(error)")
        try await fleet.eventually("the sweep resolves the late question as expired") {
            responses.responses(for: late.id).first?.reason == .expired
        }
        #expect(responses.responses(for: late.id).first?.choice.answer == .denial, "the default choice")
        #expect(responses.responses(for: early.id).first?.reason == .parentAnswered)
        responses.cancel()
        await alice.close()
        await app.close()
    }

    @Test(arguments: [Fleet.Mode.processes, .inProcess])
    func advancingTheClockExpiresAQuestion(mode: Fleet.Mode) async throws {
        try await Fleet.with(Self.family, mode: mode) { fleet in try await Self.expiry(in: fleet) }
    }

    /// A child who turns 18 the day after tomorrow asks as a child today; once the broker's clock passes the
    /// birthday, the same member is an adult and may no longer ask.
    @Test func advancingTheClockPassesABirthday() async throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let birth = calendar.date(byAdding: DateComponents(year: -18, day: 2), to: Date())!
        let birthDate = String(
            format: "%04d-%02d-%02d", calendar.component(.year, from: birth), calendar.component(.month, from: birth),
            calendar.component(.day, from: birth))
        let spec = FleetSpec(families: [
            .init(
                "appleseed",
                members: [
                    .organizer("alice", devices: ["alice-phone"]),
                    FleetSpec.Member("emma", role: .child, birthDate: birthDate, devices: ["emma-tablet"]),
                ])
        ])
        try await Fleet.with(spec, mode: .inProcess) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            try await app.ask(Self.question("before"))
            try fleet.advanceClock(by: .seconds(4 * 86_400))
            let refusal = await #expect(throws: (any Error).self) { try await app.ask(Self.question("after")) }
            #expect("\(String(describing: refusal))".contains("only a child asks"), "\(String(describing: refusal))")
            await app.close()
        }
    }

    /// Alice's phone is cut off: Bob answers one question and Emma asks another meanwhile; once restored, Alice's
    /// phone learns the first was answered and gets the second.
    static func cutAndRestore(in fleet: Fleet) async throws {
        let app = fleet.app("com.example.chat", on: "emma-tablet")
        let responses = AppResponses(app)
        let bob = try await fleet.parent(on: "bob-phone")
        let alice = try await fleet.parent(on: "alice-phone")
        let first = Self.question("first")
        try await app.ask(first)
        _ = try await alice.waitForQuestion(first.id)

        try await fleet.cut("alice-phone")
        try await fleet.eventually("alice's phone notices it is cut off") {
            try await !fleet.status(of: "alice-phone").linked
        }
        try await bob.approve(first.id)
        let second = Self.question("second")
        try await app.ask(second)
        _ = try await bob.waitForQuestion(second.id)
        try await fleet.eventually("the app gets bob's answer") { responses.responses(for: first.id).count == 1 }
        // Cut off, Alice's phone still shows the first question and not the second, and cannot answer.
        let whileCut = try await alice.pending().map(\.question.id)
        #expect(whileCut.contains(first.id))
        #expect(!whileCut.contains(second.id))
        let refused = await #expect(throws: ErrorReply.self) { try await alice.approve(second.id) }
        #expect(refused?.code == .brokerUnavailable)

        try fleet.restore("alice-phone")
        try await fleet.waitUntilLinked("alice-phone")
        try await fleet.eventually("alice's phone catches up") {
            let pending = try await alice.pending().map(\.question.id)
            return pending == [second.id]
        }
        try await alice.decline(second.id)
        try await fleet.eventually("the app gets alice's answer") { responses.responses(for: second.id).count == 1 }
        #expect(responses.responses(for: second.id).first?.answeredBy == "alice")
        responses.cancel()
        await alice.close()
        await bob.close()
        await app.close()
    }

    @Test(arguments: [Fleet.Mode.processes, .inProcess])
    func aCutParentCatchesUpWhenRestored(mode: Fleet.Mode) async throws {
        try await Fleet.with(Self.family, mode: mode) { fleet in try await Self.cutAndRestore(in: fleet) }
    }

    @Test func inProcessRestartsAndRefusesWhatNeedsAProcess() async throws {
        try await Fleet.with(Self.family, mode: .inProcess) { fleet in
            #expect(fleet.mode == .inProcess)
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let alice = try await fleet.parent(on: "alice-phone")
            let question = Self.question("restarts")
            try await app.ask(question)
            _ = try await alice.waitForQuestion(question.id)
            try await fleet.restart("emma-tablet")
            try await fleet.crashAndRestartBroker()
            try await fleet.waitUntilLinked("alice-phone")
            try await alice.approve(question.id)
            // The restarted daemon learns of the app at its next hello, within the keep-alive interval (10 s) of
            // the app's last one: a wait of exactly 10 s raced it and lost on a loaded machine.
            try await fleet.eventually("the approval reaches the app across restarts", timeout: .seconds(30)) {
                responses.responses(for: question.id).count == 1
            }
            let refused = #expect(throws: FleetError.self) { try fleet.daemon("alice-phone").pause() }
            #expect(refused?.message.contains("not supported in-process") == true)
            let logFile = try fleet.daemon("emma-tablet").logFile
            let raw = FileManager.default.contents(atPath: logFile)
            #expect(
                fleet.recentLog(of: "emma-tablet").contains("linked to the broker"),
                "in-process daemons log to their file (\(logFile): \(raw.map { "\($0.count) bytes: \(String(decoding: $0.prefix(300), as: UTF8.self))" } ?? "missing"))"
            )
            responses.cancel()
            await alice.close()
            await app.close()
        }
    }

    @Test func aCutChildAsksIntoItsOutbox() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let alice = try await fleet.parent(on: "alice-phone")
            try await fleet.cut("emma-tablet")
            try await fleet.eventually("emma's tablet notices it is cut off") {
                try await !fleet.status(of: "emma-tablet").linked
            }
            let question = Self.question("offline")
            try await app.ask(question)  // accepted into the outbox
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await alice.pending().isEmpty, "nothing reaches the broker while cut off")
            try fleet.restore("emma-tablet")
            _ = try await alice.waitForQuestion(question.id)
            try await alice.approve(question.id)
            try await fleet.eventually("the response reaches the app") {
                responses.responses(for: question.id).count == 1
            }
            responses.cancel()
            await alice.close()
            await app.close()
        }
    }
}
