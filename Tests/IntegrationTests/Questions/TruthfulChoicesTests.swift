import Foundation
import GRDB
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Testing

/// A parent decides from the truth, across the three daemons as real processes: a choice means its answer at every
/// layer, names in disguise are refused at every layer, and what slipped into a store is printed escaped.
@Suite("A parent decides from the truth across real daemons", .serialized, .tags(.fleet))
struct TruthfulChoicesTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .child("emma", devices: ["emma-tablet"]),
            ])
    ])

    static func question(
        _ handle: String, kind: CommunicationHandle.Kind = .custom, choices: [PermissionChoice] = [.approve, .decline]
    ) -> PermissionQuestion<CommunicationTopic> {
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(handle: CommunicationHandle(value: handle, kind: kind))
        ])
        topic.actions = [.message]
        return PermissionQuestion(topic: topic, choices: choices)
    }

    /// The app's attack: its "Decline" approves.
    static let disguised = question(
        "stranger",
        choices: [
            PermissionChoice(id: "decline", title: "Decline", answer: .approval),
            PermissionChoice(id: "no", title: "No", answer: .denial),
        ])

    /// Sends `question` to child-device as an app that skips PermissionKit, and to the broker as the child's device
    /// that skips child-device; returns both error replies.
    static func rawAsks(_ question: Question, fleet: Fleet) async throws -> [ErrorReply] {
        var errors: [ErrorReply] = []
        let app = try LocalClient(endpoint: LocalEndpoints.ipc(fleet.socket(of: "emma-tablet")), peer: "child-device")
        try await app.start()
        _ = try await app.request(.appHello(bundleID: "com.example.raw"))
        do {
            let reply = try await app.request(.ask(appBundleID: "com.example.raw", question: question))
            Issue.record("child-device took it: \(reply)")
        } catch let error as ErrorReply {
            errors.append(error)
        }
        await app.close()
        let device = try await RawPeer.device("emma-tablet", of: fleet)
        let reply = try await device.request(.ask(appBundleID: "com.example.raw", question: question), requestID: 1)
        if case .error(let error) = reply { errors.append(error) } else { Issue.record("the broker took it: \(reply)") }
        await device.close()
        return errors
    }

    @Test func aDeclineThatApprovesIsRefusedAtEveryLayer() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            do {
                try await app.ask(Self.disguised)
                Issue.record("PermissionKit sent a Decline that approves")
            } catch let error as AskFailure {
                guard case .misleadingChoice(let field, _) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(field == "question.choices[0]")
            }
            let errors = try await Self.rawAsks(Question(Self.disguised), fleet: fleet)
            #expect(errors.count == 2)
            for error in errors {
                #expect(error.code == .misleadingChoice && error.message.hasPrefix("question.choices[0]: "), "\(error)")
            }
            // Nothing reached the parent: a good question asked after them is the only one waiting.
            let good = Self.question("sam")
            try await app.ask(good)
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(good.id)
            #expect(try await alice.pending().map(\.question.id) == [good.id])
            #expect(await app.knownHandles(in: [CommunicationHandle(value: "stranger", kind: .custom)]).isEmpty)
            await alice.close()
            await app.close()
        }
    }

    @Test func declineAlwaysSendsADenialWhateverTheIDs() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let alice = try await fleet.parent(on: "alice-phone")
            let own = [
                PermissionChoice(id: "allow", title: "Allow", answer: .approval),
                PermissionChoice(id: "deny", title: "Not now", answer: .denial),
            ]
            // hearthctl refuses a --choice of the other answer, and changes nothing.
            let first = Self.question("leo", choices: own)
            try await app.ask(first)
            _ = try await alice.waitForQuestion(first.id)
            let socket = fleet.socket(of: "alice-phone")
            let prefix = String(first.id.uuidString.prefix(8))
            let refused = try await hearthctl(["parent", "decline", prefix, "--choice", "allow", "--socket", socket])
            #expect(refused.status != 0 && refused.output.contains("gives approval, not denial"), "\(refused)")
            #expect(try await alice.pending().contains { $0.question.id == first.id }, "still waiting")
            let declined = try await hearthctl(["parent", "decline", prefix, "--socket", socket])
            #expect(declined.status == 0, "\(declined.output)")
            #expect(declined.output.contains(#"Declined (the app's "Not now"): question"#), "\(declined.output)")

            // ParentConsole declines by answer: the app's denial, though none is called `decline`.
            let second = Self.question("mia", choices: own)
            try await app.ask(second)
            _ = try await alice.waitForQuestion(second.id)
            let resolution = try await alice.decline(second.id)
            #expect(resolution.choice.answer == .denial && resolution.choice.id == "deny")
            try await fleet.eventually("the app gets both denials") {
                responses.responses(for: first.id).count == 1 && responses.responses(for: second.id).count == 1
            }
            #expect(responses.responses(for: first.id).first?.choice.answer == .denial)
            let asked: Set = [
                CommunicationHandle(value: "leo", kind: .custom), CommunicationHandle(value: "mia", kind: .custom),
            ]
            #expect(await app.knownHandles(in: asked).isEmpty, "nothing was approved")

            // History says which answer was given, the app's title only beside it.
            let history = try await hearthctl(["parent", "history", "emma", "--socket", socket])
            #expect(history.output.contains(#"alice declined (the app's "Not now") for emma"#), "\(history.output)")
            responses.cancel()
            await alice.close()
            await app.close()
        }
    }

    @Test(arguments: ["stranger\u{1B}[2K\rgrandma@family.example", "evil\u{202E}moc.elpmaxe@amdnarg"])
    func aHandleInDisguiseIsRefusedAtEveryLayer(value: String) async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let disguised = Self.question(value, kind: .emailAddress)
            do {
                try await app.ask(disguised)
                Issue.record("PermissionKit sent a handle in disguise")
            } catch let error as AskFailure {
                guard case .invalidText(let field, _) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(field == "topic.personInformation[0].handle.value")
            }
            let errors = try await Self.rawAsks(Question(disguised), fleet: fleet)
            #expect(errors.count == 2)
            for error in errors {
                #expect(error.code == .invalidText, "\(error)")
                #expect(error.message.hasPrefix("topic.personInformation[0].handle.value: "), "\(error)")
            }
            let alice = try await fleet.parent(on: "alice-phone")
            #expect(try await alice.pending().isEmpty)
            await alice.close()
            await app.close()
        }
    }

    @Test func whatSlippedIntoAStoreIsPrintedEscaped() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let alice = try await fleet.parent(on: "alice-phone")
            let sam = Self.question("sam")
            try await app.ask(sam)
            _ = try await alice.waitForQuestion(sam.id)
            try await alice.approve(sam.id)
            // A row no rule checked (an old version's, a file edited by hand), written beside the broker's.
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let database = try DatabaseQueue(
                path: fleet.directory + "/broker/broker.sqlite", configuration: configuration)
            try await database.write { db in
                try db.execute(
                    sql: "INSERT INTO known_handle (child_id, kind, value, question_id) VALUES ('emma', 3, ?, NULL)",
                    arguments: ["stranger\u{1B}[2K\rgrandma\u{202E}moc"])
            }
            try database.close()
            let socket = fleet.socket(of: "alice-phone")
            let listed = try await hearthctl(["parent", "approved", "emma", "--socket", socket])
            #expect(listed.status == 0, "\(listed.output)")
            #expect(listed.output.contains(#"custom:stranger\u{1B}[2K\u{D}grandma\u{202E}moc"#), "\(listed.output)")
            #expect(!listed.output.contains("\u{1B}") && !listed.output.contains("\u{202E}"), "\(listed.output)")
            let json = try await hearthctl(["parent", "approved", "emma", "--json", "--socket", socket])
            #expect(json.output.contains(#"grandma\u202emoc"#) && !json.output.contains("\u{202E}"), "\(json.output)")

            // Revoking a handle that was never approved says so and fails.
            let nobody = try await hearthctl(
                ["parent", "approved", "emma", "--revoke", "custom:nobody", "--socket", socket])
            #expect(nobody.status != 0, "\(nobody.output)")
            #expect(
                nobody.output.contains("Not approved for emma, nothing to revoke: custom:nobody"), "\(nobody.output)")
            let revoked = try await hearthctl([
                "parent", "approved", "emma", "--revoke", "custom:sam", "--socket", socket,
            ])
            #expect(revoked.status == 0 && revoked.output.contains("Revoked for emma: custom:sam"), "\(revoked.output)")
            await alice.close()
            await app.close()
        }
    }

    @Test func aWithdrawalIsItsOwnKindWithoutAnAnswer() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let alice = try await fleet.parent(on: "alice-phone")
            let question = Self.question("sam")
            try await app.ask(question)
            _ = try await alice.waitForQuestion(question.id)
            try await app.withdraw(question)
            let socket = fleet.socket(of: "alice-phone")
            @Sendable func history() async throws -> [String] {
                try await hearthctl(["parent", "history", "emma", "--json", "--socket", socket]).output
                    .split(separator: "\n").map(String.init)
            }
            try await fleet.eventually("the withdrawal is in the history", timeout: .seconds(20)) {
                try await history().contains { $0.contains(#""kind":"withdrawn""#) }
            }
            let lines = try await history()
            let entry = try #require(lines.first { $0.contains(#""kind":"withdrawn""#) })
            #expect(!entry.contains(#""answer""#) && !entry.contains(#""choice""#), "\(entry)")
            let listed = try await hearthctl(["parent", "list", "--json", "--socket", socket])
            #expect(listed.status == 0 && listed.output.isEmpty, "\(listed.output)")
            await alice.close()
            await app.close()
        }
    }

    @Test func parentListJSONSaysWhatEachChoiceDoes() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let alice = try await fleet.parent(on: "alice-phone")
            let question = Self.question("sam")
            try await app.ask(question)
            _ = try await alice.waitForQuestion(question.id)
            let listed = try await hearthctl(["parent", "list", "--json", "--socket", fleet.socket(of: "alice-phone")])
            let line = try #require(listed.output.split(separator: "\n").first.map(String.init), "\(listed.output)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(object["id"] as? String == question.id.uuidString.lowercased())
            #expect(object["child"] as? String == "emma" && object["app"] as? String == "com.example.chat")
            let choices = try #require(object["choices"] as? [[String: String]])
            #expect(choices.map { $0["answer"] } == ["approval", "denial"])
            #expect((object["people"] as? [[String: Any]])?.first?["handle"] as? String == "custom:sam")
            await alice.close()
            await app.close()
        }
    }
}
