import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Testing

/// Questions at, just under and just over their size budget, with avatar images, through the three real daemons:
/// asked, answered, delivered to every device and app, and synced again by a fresh connection.
@Suite("Large questions across real daemons", .serialized, .tags(.fleet))
struct LargeQuestionTests {
    static let spec = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .child("emma", devices: ["emma-tablet", "emma-phone"]),
            ])
    ])

    /// A question about four friends whose encoding is exactly `bytes` long, its bulk in their avatar images.
    static func question(encodedBytes bytes: Int) -> PermissionQuestion<CommunicationTopic> {
        var name = PersonNameComponents()
        name.givenName = "Friend"
        var people = (0..<5).map { index in
            PersonInformation(
                handle: CommunicationHandle(value: "friend\(index)", kind: .custom), nameComponents: name,
                avatarImage: [])
        }
        func make() -> PermissionQuestion<CommunicationTopic> {
            PermissionQuestion(communicationTopic: CommunicationTopic(personInformation: people, actions: [.message]))
        }
        var missing = bytes - QuestionBudget.encodedSize(of: Question(make()))
        for index in people.indices {
            let size = min(missing, Wire.maxAvatarBytes)
            people[index].avatarImage = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ index) }
            missing -= size
        }
        return make()
    }

    static func withoutExpiry(_ question: Question) -> Question {
        var question = question
        question.expirationDate = nil
        return question
    }

    @Test(arguments: [QuestionBudget.maxQuestionBytes, QuestionBudget.maxQuestionBytes - 1])
    func aQuestionWithinItsBudgetIsAnsweredDeliveredAndSyncedWhole(bytes: Int) async throws {
        try await Fleet.with(Self.spec) { fleet in
            let tablet = fleet.app("com.example.chat", on: "emma-tablet")
            let phone = fleet.app("com.example.chat", on: "emma-phone")
            let onTablet = ResponseCollector(tablet)
            let onPhone = ResponseCollector(phone)
            let alice = try await fleet.parent(on: "alice-phone")
            let ask = Self.question(encodedBytes: bytes)
            #expect(QuestionBudget.encodedSize(of: Question(ask)) == bytes)

            try await tablet.ask(ask)
            let atAlice = try await alice.waitForQuestion(ask.id, timeout: .seconds(20))
            // The broker gives a question without an expiry date its family's lifetime (FAMILY-RULES.md).
            #expect(atAlice.question.expirationDate != nil, "the question has an expiry date")
            #expect(Self.withoutExpiry(atAlice.question) == Question(ask), "alice sees every avatar")
            try await alice.approve(ask.id)
            try await fleet.eventually("both of emma's devices hand the app its response", timeout: .seconds(20)) {
                onTablet.responses(for: ask.id).count == 1 && onPhone.responses(for: ask.id).count == 1
            }
            let delivered = onTablet.responses(for: ask.id).first?.question
            delivered?.expirationDate = nil
            #expect(delivered == ask)
            #expect(onPhone.responses(for: ask.id).first?.choice.answer == .approval)
            // Nobody is stuck at the answer's sequence number: the parent stays linked and lists again.
            try await fleet.waitUntilLinked("alice-phone", timeout: .seconds(10))
            try await fleet.eventually("alice's list drops the answered question") {
                try await alice.pending().isEmpty
            }

            // A fresh connection syncs the whole log from 0: every page fits in a frame.
            let fresh = try await RawPeer.device("emma-phone", of: fleet)
            guard
                case .welcome(_, _, _, _, _, let head) = try await fresh.request(
                    .hello(minVersion: 1, maxVersion: 1), requestID: 1)
            else {
                Issue.record("no welcome")
                return
            }
            var events: [Event] = []
            var request: UInt64 = 2
            while events.last?.sequence ?? 0 < head {
                let reply = try await fresh.request(
                    .sync(after: events.last?.sequence ?? 0, limit: 1000), requestID: request)
                guard case .events(_, let page) = reply, !page.isEmpty else {
                    Issue.record("sync after \(events.last?.sequence ?? 0) → \(reply)")
                    break
                }
                events += page
                request += 1
            }
            let resolved = events.compactMap { event -> AskedQuestion? in
                if case .questionResolved(let asked, _) = event.body { return asked }
                return nil
            }
            #expect(resolved.map { Self.withoutExpiry($0.question) } == [Question(ask)])
            await fresh.close()
        }
    }

    @Test func aQuestionOverItsBudgetIsRefusedWhereverItEntersAndNothingIsStored() async throws {
        try await Fleet.with(Self.spec) { fleet in
            let over = Self.question(encodedBytes: QuestionBudget.maxQuestionBytes + 1)
            try await fleet.waitUntilLinked("emma-tablet", timeout: .seconds(10))
            let before = try BrokerSnapshot(fleet)

            // PermissionKit refuses it before sending.
            do {
                try await fleet.app("com.example.chat", on: "emma-tablet").ask(over)
                Issue.record("the library sent a question over its budget")
            } catch let error as AskFailure {
                #expect(
                    error
                        == .questionTooLarge(
                            bytes: QuestionBudget.maxQuestionBytes + 1, budget: QuestionBudget.maxQuestionBytes,
                            largestField: "topic.personInformation[0].avatarImage"))
            }

            // child-device refuses it from an app that skips the library.
            let app = try LocalClient(
                endpoint: LocalEndpoints.ipc(fleet.socket(of: "emma-tablet")), peer: "child-device")
            try await app.start()
            _ = try await app.request(.appHello(bundleID: "com.example.raw"))
            await #expect(throws: ErrorReply.self) {
                try await app.request(.ask(appBundleID: "com.example.raw", question: Question(over)))
            }
            do {
                _ = try await app.request(.ask(appBundleID: "com.example.raw", question: Question(over)))
            } catch let error as ErrorReply {
                #expect(error.code == .questionTooLarge)
                #expect(error.message.contains("budget of \(QuestionBudget.maxQuestionBytes) bytes"))
            }
            await app.close()

            // The broker refuses it from a device that skips child-device.
            let device = try await RawPeer.device("emma-phone", of: fleet)
            let reply = try await device.request(
                .ask(appBundleID: "com.example.raw", question: Question(over)), requestID: 5)
            #expect(reply == .error(ErrorReply(.questionTooLarge, QuestionBudget.check(Question(over))!.description)))
            await device.close()
            #expect(try BrokerSnapshot(fleet) == before)
        }
    }

    /// §1.3: a frame of exactly 1 MiB is read over CURVE (the broker) as over ipc (child-device); one byte more costs
    /// the sender its connection, which it gets back by reconnecting.
    @Test func aFrameOfOneMebibyteIsReadOnBothTransportsAndOneByteMoreIsNot() async throws {
        try await Fleet.with(Self.spec) { fleet in
            let device = try await RawPeer.device("emma-phone", of: fleet)
            #expect(try await device.request(.ping, requestID: 1) == .pong(head: 0))
            func ping(padTo size: Int, id: UInt64) -> [UInt8] {
                let header: [UInt8] = [1, 0x06] + withUnsafeBytes(of: id.bigEndian) { Array($0) }
                return header + [UInt8](repeating: 0, count: size - header.count)
            }
            device.send(frames: [ping(padTo: Wire.maxFrameSize, id: 2)])
            let read = try await Self.reply(to: 2, from: device)
            #expect(
                read
                    == .error(
                        ErrorReply(.malformedMessage, "\(Wire.maxFrameSize - 10) unexpected bytes after the last field")
                    ))
            device.send(frames: [ping(padTo: Wire.maxFrameSize + 1, id: 3)])
            #expect(
                try await Self.reply(to: 3, from: device, timeout: .seconds(2)) == nil, "the connection was dropped")
            var pong: Message?
            for attempt in 4...40 where pong == nil {
                pong = try? await device.request(.ping, requestID: UInt64(attempt), timeout: .milliseconds(500))
            }
            #expect(pong == .pong(head: 0), "served again after reconnecting")
            await device.close()

            let app = try LocalClient(
                endpoint: LocalEndpoints.ipc(fleet.socket(of: "emma-tablet")), peer: "child-device")
            try await app.start()
            let longest = String(repeating: "a", count: Wire.maxFrameSize - 14)
            await #expect(
                throws: ErrorReply(
                    .malformedMessage, "appHello.bundleID is \(longest.utf8.count) long, at most 255 allowed")
            ) {
                try await app.request(.appHello(bundleID: longest))
            }
            await #expect(throws: TransportError.self, "one byte more drops the connection: no reply") {
                try await app.request(.appHello(bundleID: longest + "a"), timeout: .seconds(2))
            }
            #expect(try await app.request(.ping, timeout: .seconds(10)) != .ok, "served again after reconnecting")
            await app.close()
        }
    }

    static func reply(
        to requestID: UInt64, from peer: RawPeer, timeout: Duration = .seconds(10)
    ) async throws -> Message? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for frames in peer.take(on: 0) {
                if let last = frames.last, let envelope = try? MessageCodec.decode(last),
                    envelope.requestID == requestID
                {
                    return envelope.message
                }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
