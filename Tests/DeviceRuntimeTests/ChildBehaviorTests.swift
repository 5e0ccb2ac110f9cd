import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Synchronization
import Testing

@testable import ChildDevice
@testable import DeviceRuntime

/// child-device's behaviour against a fake context and a real SQLite file: sessions, the outbox, the inbox.
struct ChildBehaviorTests {
    static let chat: [UInt8] = [1]
    static let other: [UInt8] = [2]

    /// A settable clock for session expiry.
    final class Clock: Sendable {
        private let offset = Mutex(Duration.zero)
        private let start = ContinuousClock.now
        func advance(_ by: Duration) { offset.withLock { $0 += by } }
        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
    }

    let store: DeviceStore
    let childStore: ChildStore
    let clock = Clock()
    let behavior: ChildBehavior
    let context = FakeContext()

    init() async throws {
        store = try await temporaryStore { ChildStore.migrate(&$0) }
        childStore = ChildStore(store.pool)
        let clock = self.clock
        behavior = ChildBehavior(store: childStore, sessionIdleLimit: .seconds(60), sessionCapacity: 3) { clock.now }
    }

    func local(_ message: Message, from routingID: [UInt8], requestID: UInt64 = 7) async -> Message? {
        await behavior.handleLocal(Envelope(requestID: requestID, message: message), from: routingID, context: context)
    }

    func hello(_ app: BundleID, from routingID: [UInt8]) async {
        _ = await local(.appHello(bundleID: app), from: routingID)
    }

    func outboxCount() throws -> Int {
        try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0 }
    }

    /// Applies events as the runtime does: in the store's transaction, then `applied`.
    func apply(_ events: [Event]) async throws {
        let (applied, _) = try await store.apply(events, behavior: behavior)
        await behavior.applied(applied, context: context)
    }

    @Test func anAppMustSayHelloAndIsWelcomedWithTheRememberedChild() async throws {
        let question = Fixtures.question("bob")
        let refused = await local(.ask(appBundleID: "x", question: question), from: Self.chat)
        #expect(refused == .error(ErrorReply(.helloRequired, "send appHello with your bundle id first")))
        #expect(await local(.appAck(inboxID: 1), from: Self.chat)?.isError(.helloRequired) == true)
        context.setRemembered(member: "emma", device: "emma-tablet")
        await hello("com.example.chat", from: Self.chat)
        #expect(context.sent(to: Self.chat) == [.appWelcome(memberID: "emma", brokerConnected: false)])
        #expect(context.sent.first?.requestID == 7)
        #expect(behavior.sessionCount == 1)
    }

    @Test func anAskWhileUnlinkedIsKeptAndSentWhenTheLinkComesUp() async throws {
        await hello("com.example.chat", from: Self.chat)
        let question = Fixtures.question("bob")
        // Never welcomed: the placeholder ids.
        let reply = await local(.ask(appBundleID: "ignored", question: question), from: Self.chat)
        guard case .askAccepted(let queued, nil) = reply else {
            Issue.record("an ask while unlinked is accepted locally")
            return
        }
        #expect(queued.childMemberID == "unlinked" && queued.askingDeviceID == "unlinked")
        #expect(queued.appBundleID == "com.example.chat", "the session's bundle id, not the message's")
        #expect(context.requests.isEmpty)
        #expect(try outboxCount() == 1)

        context.setBroker { message in
            guard case .ask(let app, let asked) = message else { return nil }
            return .askAccepted(Fixtures.asked(asked, app: app), nil)
        }
        context.setLinked(true, as: Fixtures.emma)
        await behavior.linked(context: context)
        #expect(context.requests == [.ask(appBundleID: "com.example.chat", question: question)])
        #expect(try outboxCount() == 0)
    }

    @Test func aBrokerRefusalLeavesTheOutboxAndATimeoutKeepsTheQuestion() async throws {
        await hello("com.example.chat", from: Self.chat)
        context.setLinked(true, as: Fixtures.emma)
        let refusal = ErrorReply(.notAvailable, "emma is an adult")
        context.setBroker { _ in throw refusal }
        let refused = Fixtures.question("bob")
        #expect(await local(.ask(appBundleID: "", question: refused), from: Self.chat) == .error(refusal))
        #expect(try outboxCount() == 0)

        context.setBroker { _ in nil }  // no reply in time
        let late = Fixtures.question("carol")
        let reply = await local(.ask(appBundleID: "", question: late), from: Self.chat)
        guard case .askAccepted(let queued, nil) = reply else {
            Issue.record("a timed-out ask is accepted locally")
            return
        }
        #expect(queued.childMemberID == "emma", "this run's welcome")
        #expect(try outboxCount() == 1)
    }

    @Test func aResolvedQuestionIsPushedToItsAppOnlyAndTakenOnlyByIt() async throws {
        await hello("com.example.chat", from: Self.chat)
        await hello("com.example.other", from: Self.other)
        context.clearSent()
        let question = Fixtures.question("bob")
        let asked = Fixtures.asked(question)
        let resolution = Fixtures.resolution(question)
        try await apply([Fixtures.event(1, .questionResolved(asked, resolution))])
        #expect(context.sent(to: Self.chat) == [.appResponse(inboxID: 1, asked, resolution)])
        #expect(context.sent(to: Self.other).isEmpty)

        // Another app's ack is answered and changes nothing.
        #expect(await local(.appAck(inboxID: 1), from: Self.other) == .ok)
        #expect(try await childStore.inbox(of: "com.example.chat").count == 1)
        // The app says hello again (a restart): it gets its response again, until it acknowledges it.
        context.clearSent()
        await hello("com.example.chat", from: Self.chat)
        #expect(context.sent(to: Self.chat).last == .appResponse(inboxID: 1, asked, resolution))
        #expect(await local(.appAck(inboxID: 1), from: Self.chat) == .ok)
        #expect(try await childStore.inbox(of: "com.example.chat").isEmpty)
    }

    @Test func knownHandlesComeFromTheBrokerOrOfflineFromTheEvents() async throws {
        await hello("com.example.chat", from: Self.chat)
        let bob = CommunicationHandle(value: "bob", kind: .custom)
        let carol = CommunicationHandle(value: "carol", kind: .custom)
        try await apply([Fixtures.event(1, .handlesChanged(added: [bob, carol], removed: []))])
        try await apply([Fixtures.event(2, .handlesChanged(added: [], removed: [carol]))])
        #expect(await local(.knownHandles([bob, carol]), from: Self.chat) == .knownHandlesResult([bob]))
        context.setLinked(true, as: Fixtures.emma)
        context.setBroker { _ in .knownHandlesResult([carol]) }
        #expect(await local(.knownHandles([bob, carol]), from: Self.chat) == .knownHandlesResult([carol]))
    }

    @Test func aQuietSessionIsForgottenAndAHelloBringsItBack() async throws {
        await hello("com.example.chat", from: Self.chat)
        clock.advance(.seconds(50))
        #expect(await local(.appAck(inboxID: 9), from: Self.chat) == .ok, "heard from within the limit")
        clock.advance(.seconds(59))
        #expect(await local(.appAck(inboxID: 9), from: Self.chat) == .ok, "each request counts as heard from")
        clock.advance(.seconds(61))
        #expect(await local(.appAck(inboxID: 9), from: Self.chat)?.isError(.helloRequired) == true)
        #expect(behavior.sessionCount == 0)

        // Pushes go only to live sessions: a quiet one is not pushed to.
        await hello("com.example.chat", from: Self.chat)
        clock.advance(.seconds(61))
        context.clearSent()
        let question = Fixtures.question("bob")
        try await apply([Fixtures.event(1, .questionResolved(Fixtures.asked(question), Fixtures.resolution(question)))])
        #expect(context.sent.isEmpty)
        await hello("com.example.chat", from: Self.chat)
        #expect(context.sent(to: Self.chat).count == 2, "welcome, then the waiting response")
    }

    @Test func sessionsOfAppsThatLeftDoNotPileUp() async throws {
        for n in UInt8(10)..<UInt8(20) {
            await hello("com.example.app\(n)", from: [n])
            clock.advance(.seconds(1))
        }
        #expect(behavior.sessionCount == 3, "capacity: the least recently heard go first")
        #expect(await local(.appAck(inboxID: 1), from: [19]) == .ok)
        #expect(await local(.appAck(inboxID: 1), from: [10])?.isError(.helloRequired) == true)
        // Quiet ones are swept at the next hello.
        clock.advance(.seconds(120))
        await hello("com.example.chat", from: Self.chat)
        #expect(behavior.sessionCount == 1)
    }

    @Test func commandsForTheBrokerAreForwardedAndOthersRefused() async throws {
        context.setLinked(true, as: Fixtures.emma)
        context.setBroker { message in message == .getLimits(childID: "emma") ? .ok : nil }
        #expect(await local(.getLimits(childID: "emma"), from: Self.chat) == .ok)
        #expect(await local(.parentWatch(after: nil), from: Self.chat)?.isError(.unknownMessageType) == true)
    }

    /// A decline in person goes to a broker that negotiated version 4; an older one never receives it: child-device
    /// refuses it itself, naming the broker's version, and forwards nothing.
    @Test func aDeclineInPersonIsRefusedLocallyWhenTheBrokerIsOlder() async throws {
        let decline = Message.declineInPerson(questionID: UUID(), passcode: "2468")
        context.setBroker { message in message == decline ? .ok : nil }
        var older = Fixtures.emma
        older.version = Wire.inPersonDeclineVersion - 1
        context.setLinked(true, as: older)
        let refused = await local(decline, from: Self.other)
        #expect(refused?.isError(.unsupportedVersion) == true, "\(String(describing: refused))")
        #expect(!context.requests.contains(decline), "nothing is sent to an older broker")
        var current = Fixtures.emma
        current.version = Wire.inPersonDeclineVersion
        context.setLinked(true, as: current)
        #expect(await local(decline, from: Self.other) == .ok)
        #expect(context.requests == [decline])
    }

    /// `listPending` on child-device: the child's questions waiting at the broker, oldest first, until resolved (in
    /// whichever order the two events come), so that a person can name one by a prefix of its id.
    @Test func theChildsWaitingQuestionsAreListedUntilResolved() async throws {
        var asked: [AskedQuestion] = []
        for (index, name) in ["bob", "carol", "dave"].enumerated() {
            var one = Fixtures.asked(Fixtures.question(name))
            one.askedAt = Date(timeIntervalSince1970: Double(3 - index) * 1_000)
            asked.append(one)
        }
        try await apply([Fixtures.event(1, .questionPending(asked[0])), Fixtures.event(2, .questionPending(asked[1]))])
        #expect(await local(.listPending, from: Self.other) == .pendingList([asked[1], asked[0]]))

        try await apply([Fixtures.event(3, .questionResolved(asked[1], Fixtures.resolution(asked[1].question)))])
        #expect(await local(.listPending, from: Self.other) == .pendingList([asked[0]]))
        // Resolved before its pending event came: not waiting.
        try await apply([Fixtures.event(4, .questionResolved(asked[2], Fixtures.resolution(asked[2].question)))])
        try await apply([Fixtures.event(5, .questionPending(asked[2]))])
        #expect(await local(.listPending, from: Self.other) == .pendingList([asked[0]]))
    }
}

extension Message {
    func isError(_ code: ErrorCode) -> Bool {
        if case .error(let error) = self { return error.code == code }
        return false
    }
}
