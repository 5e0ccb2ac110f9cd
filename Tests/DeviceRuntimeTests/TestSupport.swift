import Foundation
import GRDB
import HearthCore
import HearthProtocol
import HearthService

@testable import DeviceRuntime

/// A fresh device store in a temporary directory, with `migrate`'s tables.
func temporaryStore(_ migrate: @escaping @Sendable (inout DatabaseMigrator) -> Void) async throws -> DeviceStore {
    let name = "device-\(UUID().uuidString.prefix(8))"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
    let path = directory.appendingPathComponent("device.sqlite").path
    return try await openedStore(path: path, migrate)
}

/// Opens (creating and migrating) the device store at `path` on a thread of its own: the file's creation, migrations
/// and syncs would otherwise hold one of the cooperative pool's threads (two on CI) that every other test shares.
func openedStore(
    path: String, _ migrate: @escaping @Sendable (inout DatabaseMigrator) -> Void
) async throws -> DeviceStore {
    try await BlockingWork.run { try DeviceStore(path: path, label: "test", migrate: migrate) }
}

enum Fixtures {
    static let emma = DeviceIdentity(familyID: "appleseed", memberID: "emma", deviceID: "emma-tablet", role: .child)

    static func question(_ handle: String, id: UUID = UUID()) -> Question {
        let person = PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))
        let topic = CommunicationTopic(personInformation: [person], actions: [.message])
        return Question(id: id, topic: .communication(topic))
    }

    static func asked(_ question: Question, app: BundleID = "com.example.chat") -> AskedQuestion {
        AskedQuestion(
            question: question, childMemberID: "emma", appBundleID: app, askingDeviceID: "emma-tablet",
            askedAt: Date(timeIntervalSince1970: 1_750_000_000))
    }

    static func resolution(_ question: Question, choice: PermissionChoice = .approve) -> Resolution {
        Resolution(
            questionID: question.id, choice: choice, reason: .parentAnswered, answeredBy: "alice",
            resolvedAt: Date(timeIntervalSince1970: 1_750_000_100))
    }

    static func event(_ sequence: UInt64, _ body: Event.Body) -> Event {
        Event(memberID: "emma", sequence: sequence, createdAt: Date(timeIntervalSince1970: 1_750_000_000), body: body)
    }
}
