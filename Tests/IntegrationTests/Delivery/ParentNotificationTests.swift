import Foundation
import HearthCore
import HearthFleet
import HearthService
import ParentKit
import PermissionKit
import Synchronization
import Testing

/// Parents are told at once, through the real daemons: ParentKit's `updates` and `hearthctl parent watch --json`.
@Suite("Parent notifications across real daemons", .serialized, .tags(.fleet))
struct ParentNotificationTests {
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
        let topic = CommunicationTopic(personInformation: [
            PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))
        ])
        let question = PermissionQuestion(communicationTopic: topic)
        if let expiresIn { question.expirationDate = Date().addingTimeInterval(expiresIn) }
        return question
    }

    @Test func newQuestionsAnswersAndExpiriesReachEveryOutlet() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let kit = ParentNotifications(socketPath: fleet.socket(of: "alice-phone"))
            let seen = NotificationCollector(kit.updates(after: 0))
            let watch = try WatchProcess([
                "parent", "watch", "--json", "--after", "0", "--count", "5",
                "--socket", fleet.socket(of: "bob-phone"),
            ])
            let bob = try await fleet.parent(on: "bob-phone")

            let first = Self.question("mallory")
            try await app.ask(first)
            try await fleet.eventually("alice is told of the question") {
                seen.items.contains { $0.kind == .questionPending && $0.questionID == first.id }
            }
            let pending = try #require(seen.items.first { $0.questionID == first.id })
            #expect(pending.childMemberID == "emma")
            #expect(pending.appBundleID == "com.example.chat")
            #expect(pending.text.contains("custom:mallory"))

            _ = try await bob.waitForQuestion(first.id)
            try await bob.approve(first.id)
            try await fleet.eventually("alice is told bob answered") {
                seen.items.contains { $0.kind == .questionAnswered && $0.questionID == first.id }
            }
            let answered = try #require(seen.items.first { $0.kind == .questionAnswered })
            #expect(answered.answeredBy == "bob")
            #expect(answered.choiceID == PermissionChoice.approve.id)

            let soon = Self.question("oscar", expiresIn: 6)  // reminded 3 s before: the 1 s sweep cannot miss it
            try await app.ask(soon)
            try await fleet.eventually("alice is told the question expired", timeout: .seconds(15)) {
                seen.items.contains { $0.kind == .questionExpired && $0.questionID == soon.id }
            }

            // hearthctl printed the same five (the short-lived question was reminded of halfway through its life),
            // one JSON object a line, and stopped.
            // Its output file has standard error too: the JSON lines are the objects.
            let lines = try await watch.finish(within: .seconds(15)).filter { Self.object($0) != nil }
            let kinds = lines.compactMap { Self.object($0)?["kind"] as? String }
            #expect(
                kinds == [
                    "questionPending", "questionAnswered", "questionPending", "questionReminder", "questionExpired",
                ],
                "\(lines)")
            #expect(Self.object(lines[1])?["answeredBy"] as? String == "bob")
            #expect(Self.object(lines[0])?["question"] as? String == first.id.uuidString.lowercased())

            try await Self.expectHistory(of: fleet)

            // Across a restart of alice's daemon the iteration goes on, and nothing is told twice.
            try await fleet.restart("alice-phone")
            let third = Self.question("trent")
            try await app.ask(third)
            try await fleet.eventually("alice is told of a question after her daemon restarted", timeout: .seconds(20))
            {
                seen.items.contains { $0.questionID == third.id }
            }
            let ids = seen.items.map(\.id)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(seen.items)")
            #expect(seen.items.count == 6, "\(seen.items.map(\.text))")
            seen.cancel()
            await kit.close()
            await bob.close()
            await app.close()
        }
    }

    /// The broker's history of emma, the same for any guardian: bob's answer (from his phone) and the expiry;
    /// questions still waiting are not in it.
    static func expectHistory(of fleet: Fleet) async throws {
        let history = try await hearthctl([
            "parent", "history", "emma", "--json", "--socket", fleet.socket(of: "alice-phone"),
        ])
        #expect(history.status == 0)
        let recorded = history.output.split(separator: "\n").compactMap { Self.object(String($0)) }
        #expect(recorded.map { $0["kind"] as? String } == ["answered", "expired"], "\(history.output)")
        #expect(recorded.first?["actor"] as? String == "bob" && recorded.first?["device"] as? String == "bob-phone")
        let human = try await hearthctl(["parent", "history", "emma", "--socket", fleet.socket(of: "bob-phone")])
        #expect(human.output.split(separator: "\n").count == 2, "\(human.output)")
        #expect(human.output.contains("answered  bob approved for emma"), "\(human.output)")
        #expect(human.output.contains("(from bob-phone)"), "\(human.output)")
        let newest = try await hearthctl([
            "parent", "history", "emma", "--last", "1", "--page-size", "1", "--socket",
            fleet.socket(of: "bob-phone"),
        ])
        #expect(newest.output.split(separator: "\n").count == 1, "\(newest.output)")
        #expect(newest.output.contains("  expired  expired unanswered"), "\(newest.output)")
        let later = try await hearthctl([
            "parent", "history", "emma", "--since", "2999-01-01T00:00:00Z", "--socket",
            fleet.socket(of: "bob-phone"),
        ])
        #expect(later.status == 0 && later.output.contains("Nothing recorded about emma"), "\(later.output)")
        let bad = try await hearthctl([
            "parent", "history", "emma", "--since", "yesterday", "--socket", fleet.socket(of: "bob-phone"),
        ])
        #expect(bad.status != 0 && bad.output.contains("not an ISO 8601"), "\(bad.output)")
    }

    static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// Collects a parent app's notifications in the background.
final class NotificationCollector: Sendable {
    private final class Box: Sendable {
        let items = Mutex<[ParentNotification]>([])
    }

    private let box = Box()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ updates: some AsyncSequence<ParentNotification, Never> & Sendable) {
        let box = self.box
        let task = Task {
            for await item in updates { box.items.withLock { $0.append(item) } }
        }
        self.task.withLock { $0 = task }
    }

    var items: [ParentNotification] { box.items.withLock { $0 } }

    func cancel() { task.withLock { $0?.cancel() } }
}

/// `hearthctl` running in the background; its output (standard output and error) as lines once it exits.
final class WatchProcess: Sendable {
    private let process: SpawnedProcess
    private let output: String

    init(_ arguments: [String]) throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-watch-\(UUID()).log").path
        process = try SpawnedProcess.launch(
            try BinaryLocator.directory() + "/hearthctl", arguments: arguments, output: output, append: false)
    }

    func finish(within timeout: Duration) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.pid, SIGTERM) }
        _ = await process.waitUntilExit()
        defer { try? FileManager.default.removeItem(atPath: output) }
        return try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
    }
}
