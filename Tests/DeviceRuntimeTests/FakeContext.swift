import Foundation
import HearthCore
import HearthProtocol
import Logging
import Synchronization

@testable import DeviceRuntime

/// A daemon for a behaviour's unit tests: a scripted broker, a recorded local socket, and a link state set by the
/// test. No sockets.
final class FakeContext: DeviceContext {
    struct Sent: Equatable {
        var message: Message
        var routingID: [UInt8]
        var requestID: UInt64
    }

    private struct State {
        var identity: DeviceIdentity?
        var remembered: (MemberID?, DeviceID?) = (nil, nil)
        var linked = false
        var linkWatchers: [AsyncStream<Bool>.Continuation] = []
        var refused = false
        var requests: [Message] = []
        var sent: [Sent] = []
        /// What the broker answers; nil makes a request time out.
        var broker: (@Sendable (Message) throws -> Message?)?
        /// Work handed to `addTask`, until `cancelTasks()`.
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())
    let daemonName: String
    let logger = Logger(label: "fake-context") { _ in SwiftLogNoOpLogHandler() }
    let publicKey = "fake-public-key"

    init(daemonName: String = "child-device") {
        self.daemonName = daemonName
    }

    var identity: DeviceIdentity? { state.withLock { $0.identity } }
    var isLinked: Bool { state.withLock { $0.linked } }
    var isRefusedByBroker: Bool { state.withLock { $0.refused } }
    /// Every command sent to the broker, in order.
    var requests: [Message] { state.withLock { $0.requests } }
    /// Every message sent on the local socket, in order.
    var sent: [Sent] { state.withLock { $0.sent } }

    func setLinked(_ linked: Bool, as identity: DeviceIdentity? = nil) {
        state.withLock { state in
            if state.linked != linked {
                for watcher in state.linkWatchers { watcher.yield(linked) }
            }
            state.linked = linked
            if let identity { state.identity = identity }
        }
    }

    func linkChanges() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        state.withLock { state in
            state.linkWatchers.append(continuation)
            continuation.yield(state.linked)
        }
        return stream
    }

    func setRemembered(member: MemberID?, device: DeviceID?) { state.withLock { $0.remembered = (member, device) } }
    func setRefused(_ refused: Bool) { state.withLock { $0.refused = refused } }
    func setBroker(_ broker: @escaping @Sendable (Message) throws -> Message?) { state.withLock { $0.broker = broker } }
    func clearSent() { state.withLock { $0.sent = [] } }

    /// The messages sent to local client `routingID`.
    func sent(to routingID: [UInt8]) -> [Message] { sent.filter { $0.routingID == routingID }.map(\.message) }

    func rememberedIdentity() async -> (memberID: MemberID?, deviceID: DeviceID?) {
        state.withLock { $0.remembered }
    }

    func request(_ message: Message, timeout: Duration) async throws -> Message {
        let broker = state.withLock { state in
            state.requests.append(message)
            return state.broker
        }
        guard let reply = try broker?(message) else { throw FakeTimeout() }
        return reply
    }

    func sendLocal(_ message: Message, to routingID: [UInt8], requestID: UInt64) {
        state.withLock { $0.sent.append(Sent(message: message, routingID: routingID, requestID: requestID)) }
    }

    /// Runs `work` at once, as a daemon would beside its other work; `cancelTasks()` stops it as a daemon's stop does.
    func addTask(_ work: @escaping @Sendable () async -> Void) {
        let task = Task { await work() }
        state.withLock { $0.tasks.append(task) }
    }

    /// Cancels the work handed to `addTask` and waits for it to end, as a daemon's stop does.
    func cancelTasks() async {
        let tasks = state.withLock { state in
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}

struct FakeTimeout: Error {}
