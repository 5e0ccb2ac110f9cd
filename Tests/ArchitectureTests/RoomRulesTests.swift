import Foundation
import Testing

/// The broker's rooms as docs/ARCHITECTURE.md draws them: a file names types of its own room and of the rooms its
/// row talks to, no other.
@Suite("Broker rooms")
struct RoomRulesTests {
    @Test func everyTypeARoomNamesIsItsOwnOrOfARoomItTalksTo() throws {
        let rules = try RoomRules.fromArchitecture()
        let owner = try RoomRules.declaredTypes(in: rules.allowed.keys)
        var strays: [String] = []
        for (room, allowed) in rules.allowed {
            for file in RoomRules.files(of: room) {
                for name in RoomRules.typeNames(in: try RoomRules.code(of: file)).sorted() {
                    guard let other = owner[name], other != room, !allowed.contains(other) else { continue }
                    strays.append("\(file) names \(name) of \(other)/")
                }
            }
        }
        #expect(strays.isEmpty, "\(strays.sorted().joined(separator: "\n"))")
    }

    /// The rows hold the direction the doc states: the service composes the sockets, which name nothing of it.
    @Test func theSocketsTalkToNoServiceRoom() throws {
        let allowed = try RoomRules.fromArchitecture().allowed
        #expect(allowed["Service"]?.contains("Sockets") == true)
        #expect(allowed["Sockets"]?.contains("Service") == false)
    }

    @Test func everyFolderOfTheBrokerHasARowAndNoNameIsTwice() throws {
        let rows = Set(try RoomRules.fromArchitecture().allowed.keys)
        let folders = try RoomRules.folders().map(\.room)
        #expect(rows == Set(folders))
        #expect(folders.count == Set(folders).count, "a room's folder name is in two modules")
    }

    @Test func aNameInACommentOrAStringIsNotAUse() {
        let code = RoomRules.stripped("let a = Gate() // BrokerFrames\nlet s = \"Store \\\"Engine\\\"\", t = Admin()")
        #expect(RoomRules.typeNames(in: code) == ["Gate", "Admin"])
        #expect(RoomRules.declaredType("public struct AdmittedCommand: Sendable {") == "AdmittedCommand")
        #expect(RoomRules.declaredType("    struct Nested {") == nil)
    }
}
