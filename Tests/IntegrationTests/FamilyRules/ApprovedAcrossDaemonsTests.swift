import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// `hearthctl parent approved` through the three daemons as real processes: any guardian sees who approved which
/// handle and when, and revokes from there; the child's app stops knowing the handle.
@Suite("Approved handles across real daemons", .serialized, .tags(.fleet))
struct ApprovedAcrossDaemonsTests {
    @Test func aGuardianSeesWhoApprovedAndRevokesFromThere() async throws {
        try await Fleet.with(WordsAcrossDaemonsTests.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let alice = try await fleet.parent(on: "alice-phone")
            let sam = CommunicationHandle(value: "sam", kind: .custom)
            let question = PermissionQuestion(handle: sam)
            try await app.ask(question)
            _ = try await alice.waitForQuestion(question.id)
            let resolution = try await alice.approve(question.id)
            try await fleet.eventually("the app knows sam") { await app.isKnownHandle(sam) }

            let bobSocket = fleet.socket(of: "bob-phone")
            let listed = try await hearthctl(["parent", "approved", "emma", "--socket", bobSocket])
            #expect(listed.status == 0, "\(listed.output)")
            #expect(listed.output.contains("custom:sam  approved by alice at "), "\(listed.output)")
            #expect(listed.output.contains("--revoke custom:sam"), "\(listed.output)")
            let json = try await hearthctl(["parent", "approved", "emma", "--json", "--socket", bobSocket])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
            #expect(object["approvedBy"] as? String == "alice")
            #expect(object["question"] as? String == question.id.uuidString.lowercased())
            #expect(object["approvedAt"] as? String == resolution.resolvedAt.formatted(.iso8601))

            let revoked = try await hearthctl([
                "parent", "approved", "emma", "--revoke", "custom:sam", "--socket", bobSocket,
            ])
            #expect(revoked.status == 0 && revoked.output.contains("Revoked for emma: custom:sam"), "\(revoked)")
            #expect(revoked.output.contains("Nothing is approved for emma."), "\(revoked.output)")
            try await fleet.eventually("the app no longer knows sam") { !(await app.isKnownHandle(sam)) }
            let approvedByConsole = try await alice.approved(of: "emma")
            #expect(approvedByConsole.approvals.isEmpty && approvedByConsole.complete)
            await alice.close()
            await app.close()
        }
    }
}
