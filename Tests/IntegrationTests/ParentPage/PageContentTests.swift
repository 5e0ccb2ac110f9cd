import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// What parent-device's page shows besides its buttons, read as HTML (no browser): a question's note with a field for
/// a message, each child's approved handles with who approved them, and each child's history from the broker.
@Suite("Parent page content", .serialized, .tags(.fleet))
struct PageContentTests {
    @Test func thePageShowsTheNoteTheApprovedListAndTheHistory() async throws {
        try await Fleet.with(WordsAcrossDaemonsTests.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let bob = try await fleet.parent(on: "bob-phone")
            let first = PermissionQuestion(handle: CommunicationHandle(value: "sam", kind: .custom))
            first.note = "from <school>"
            try await app.ask(first)
            _ = try await bob.waitForQuestion(first.id)
            let (status, waiting) = try await ParentPageTests.page(fleet, "alice-phone")
            #expect(status == 200)
            let id = first.id.uuidString.lowercased()
            #expect(
                waiting.contains("id=\"note-\(id)\">“<bdi>from &lt;school&gt;</bdi>”"), "the note, escaped and isolated"
            )
            #expect(waiting.contains("name=\"message\" id=\"message-\(id)\""), "a field for a message")

            try await bob.approve(first.id, message: "ok")
            try await fleet.eventually("the page lists sam as approved by bob") {
                let page = (try? await ParentPageTests.page(fleet, "alice-phone").1) ?? ""
                return page.contains("id=\"approved-emma\">Approved: username <bdi>sam</bdi> (by bob, ")
            }
            // The history is the broker's, the same for every guardian: bob's answer from his phone, and alice's own
            // change of emma's limits (this device was never told of its own change: only the broker has it).
            let alice = try await fleet.parent(on: "alice-phone")
            var limits = try await alice.limits(of: "emma").settings
            limits.allowContactEditing.toggle()
            try await alice.setLimits(limits, of: "emma")
            let page = try await ParentPageTests.page(fleet, "alice-phone").1
            let start = try #require(page.range(of: "id=\"history-emma\""), "a history for emma: \(page)")
            let history = String(page[start.lowerBound...])
            #expect(history.contains("alice changed emma&#39;s limits: contact editing"), "\(history)")
            #expect(history.contains("bob approved for emma"), "\(history)")
            #expect(history.contains("<small>from bob-phone</small>"), "\(history)")
            #expect(
                history.range(of: "alice changed")!.lowerBound < history.range(of: "bob approved")!.lowerBound,
                "newest first")
            await alice.close()
            await bob.close()
            await app.close()
        }
    }
}
