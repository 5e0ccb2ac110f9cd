import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// The README's fleet example, verbatim, so the document cannot drift from the API.
@Suite("README examples", .tags(.fleet))
struct ReadmeExampleTests {
    @Test func fleetExampleRunsAsWritten() async throws {
        // From README.md, "For test writers: fleets":
        let fleet = try await Fleet.launch(
            FleetSpec(families: [
                .init(
                    "appleseed",
                    members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])])
            ]))
        let app = fleet.app("com.example.chat", on: "emma-tablet")
        let question = PermissionQuestion(handles: [CommunicationHandle(value: "pal", kind: .custom)])
        try await app.ask(question)
        let alice = try await fleet.parent(on: "alice-phone")
        _ = try await alice.waitForQuestion(question.id)
        try await alice.approve(question.id)
        try await fleet.restartBroker()  // faults: restart, crash, daemon(...).pause(), cut, advanceClock, ...
        await alice.close()
        await app.close()
        await fleet.shutdown()
    }
}
