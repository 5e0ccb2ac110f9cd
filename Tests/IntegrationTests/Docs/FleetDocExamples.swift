// The Swift example of docs/FLEET.md, verbatim from its first line on: FleetDocTests checks they are identical.

import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import PermissionKit
import Testing

let appleseeds = FleetSpec(families: [
    .init(
        "appleseed",
        members: [
            .organizer("alice", devices: ["alice-phone"]),
            .guardian("bob", devices: ["bob-phone"]),
            .child("emma", devices: ["emma-tablet"]),
        ])
])

@Test func aParentOfflineCatchesUp() async throws {
    try await Fleet.with(appleseeds) { fleet in  // processes; add `mode: .inProcess` for speed
        let app = fleet.app("com.example.chat", on: "emma-tablet")
        let responses = AppResponses(app)
        let alice = try await fleet.parent(on: "alice-phone")
        let bob = try await fleet.parent(on: "bob-phone")
        let question = PermissionQuestion(handles: [CommunicationHandle(value: "pal", kind: .custom)])
        try await app.ask(question)
        _ = try await alice.waitForQuestion(question.id)

        try await fleet.cut("alice-phone")  // Alice's phone loses its network
        try await bob.approve(question.id)
        try await fleet.eventually("the app gets Bob's answer") { responses.responses(for: question.id).count == 1 }
        #expect(try await alice.pending().map(\.question.id) == [question.id])  // still shown: it cannot know

        try fleet.restore("alice-phone")  // back online, it catches up
        try await fleet.eventually("Alice's phone learns Bob answered") { try await alice.pending().isEmpty }
        responses.cancel()
        await alice.close()
        await bob.close()
        await app.close()
    }
}

@Test func aLateAnswerIsRefused() async throws {
    try await Fleet.with(appleseeds, mode: .inProcess) { fleet in
        let app = fleet.app("com.example.chat", on: "emma-tablet")
        let responses = AppResponses(app)
        let alice = try await fleet.parent(on: "alice-phone")
        let asked = PermissionQuestion(handles: [CommunicationHandle(value: "pal", kind: .custom)])
        asked.expirationDate = Date().addingTimeInterval(3600)
        let question = asked
        try await app.ask(question)
        _ = try await alice.waitForQuestion(question.id)

        try fleet.advanceClock(by: .seconds(2 * 3600))  // the broker's "now" jumps two hours
        try await fleet.eventually("the question expires") {
            responses.responses(for: question.id).first?.reason == .expired
        }
        let refusal = await #expect(throws: ErrorReply.self) { try await alice.approve(question.id) }
        #expect(refusal?.code == .expired)  // settled by the expiry: the error says why
        responses.cancel()
        await alice.close()
        await app.close()
    }
}
