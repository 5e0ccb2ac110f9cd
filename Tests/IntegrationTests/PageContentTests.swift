import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// What parent-device's page shows besides its buttons, read as HTML (no browser): a question's note with a field for
/// a message, and each child's approved handles with who approved them.
@Suite("Parent page content", .serialized)
struct PageContentTests {
    @Test func thePageShowsTheNoteAndTheApprovedList() async throws {
        try await Fleet.with(WordsAcrossDaemonsTests.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let bob = try await fleet.parent(on: "bob-phone")
            var first = PermissionQuestion(handle: CommunicationHandle(value: "sam", kind: .custom))
            first.note = "from <school>"
            try await app.ask(first)
            _ = try await bob.waitForQuestion(first.id)
            let url = try await ParentPageTests.pageURL(fleet, "alice-phone")
            let (status, waiting) = try await ParentPageTests.http("GET", url)
            #expect(status == 200)
            let id = first.id.uuidString.lowercased()
            #expect(waiting.contains("id=\"note-\(id)\">“from &lt;school&gt;”"), "the note, escaped")
            #expect(waiting.contains("name=\"message\" id=\"message-\(id)\""), "a field for a message")

            try await bob.approve(first.id, message: "ok")
            try await fleet.eventually("the page lists sam as approved by bob") {
                let page = (try? await ParentPageTests.http("GET", url).1) ?? ""
                return page.contains("id=\"approved-emma\">Approved: custom:sam (by bob, ")
            }
            await bob.close()
            await app.close()
        }
    }
}
