import Foundation
import HearthCore
import HearthProtocol
import Synchronization
import ZeroMQ

/// A scripted child-device daemon: a ROUTER on an ipc socket in a temp dir, run by a `SocketLoop` (its own thread,
/// never the async pool), speaking the app protocol through `MessageCodec`.
final class FakeChildDevice: Sendable {
    struct InboxEntry: Sendable {
        var asked: AskedQuestion
        var resolution: Resolution
    }

    private struct State: ~Copyable {
        /// Routing id → bundle id of every app that said hello since the last `forgetApps()`.
        var apps: [[UInt8]: String] = [:]
        var received: [Message] = []
        var hellos: [String] = []
        var acks: [UInt64] = []
        var inbox: [(UInt64, InboxEntry)] = []
        var known: Set<CommunicationHandle> = []
        var askError: ErrorReply?
        var askResolution: (@Sendable (Question) -> Resolution)?
        var silent = false
    }

    /// The socket path apps connect to.
    let path: String
    let directory: String
    private let loop: SocketLoop
    private let state = Mutex(State())

    init() throws {
        directory = "/tmp/pk-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/child-device.sock"
        let endpoint = "ipc://" + path
        loop = try SocketLoop(
            name: "fake-child-device",
            sockets: [
                .init(.router) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.bind(endpoint)
                }
            ])
    }

    func start() async throws {
        try await loop.start()
        let inbound = loop.inbound
        Task.detached { [self] in
            for await batch in inbound {
                for item in batch { handle(item.message) }
            }
        }
    }

    func stop() async {
        await loop.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: Script

    func setKnown(_ handles: Set<CommunicationHandle>) { state.withLock { $0.known = handles } }
    func setAskError(_ error: ErrorReply?) { state.withLock { $0.askError = error } }
    func setAskResolution(_ resolve: (@Sendable (Question) -> Resolution)?) {
        state.withLock { $0.askResolution = resolve }
    }
    /// A silent daemon reads everything and answers nothing, like one that hangs.
    func setSilent(_ silent: Bool) { state.withLock { $0.silent = silent } }
    /// Forgets every app's hello, as a restarted daemon would.
    func forgetApps() { state.withLock { $0.apps = [:] } }

    /// Puts a response in the inbox and pushes it to every app that said hello.
    func push(inboxID: UInt64, _ entry: InboxEntry) {
        let targets = state.withLock { state in
            state.inbox.removeAll { $0.0 == inboxID }
            state.inbox.append((inboxID, entry))
            return Array(state.apps.keys)
        }
        let frame = MessageCodec.encode(.appResponse(inboxID: inboxID, entry.asked, entry.resolution))
        for identity in targets { loop.send([identity, frame], on: 0) }
    }

    var received: [Message] { state.withLock { $0.received } }
    var hellos: [String] { state.withLock { $0.hellos } }
    var acks: [UInt64] { state.withLock { $0.acks } }
    var inboxIDs: [UInt64] { state.withLock { $0.inbox.map(\.0) } }
    var connectedApps: Int { state.withLock { $0.apps.count } }

    // MARK: Protocol

    private func handle(_ message: ZMQMessage) {
        guard message.frames.count == 2 else { return }
        let identity = message.frames[0]
        let frame = message.frames[1]
        let envelope: Envelope
        do {
            envelope = try MessageCodec.decode(frame)
        } catch {
            reply(identity, MessageCodec.peekRequestID(frame), .error(ErrorReply(error.code, error.description)))
            return
        }
        let id = envelope.requestID
        let silent = state.withLock { state in
            state.received.append(envelope.message)
            return state.silent
        }
        if silent { return }
        switch envelope.message {
        case .appHello(let bundleID):
            let waiting = state.withLock { state in
                state.apps[identity] = bundleID
                state.hellos.append(bundleID)
                return state.inbox
            }
            reply(identity, id, .appWelcome(memberID: "kid", brokerConnected: true))
            for (inboxID, entry) in waiting {
                reply(identity, 0, .appResponse(inboxID: inboxID, entry.asked, entry.resolution))
            }
        case .knownHandles(let handles):
            let (bundleID, known) = state.withLock { ($0.apps[identity], $0.known) }
            guard bundleID != nil else {
                return reply(identity, id, .error(ErrorReply(.helloRequired, "say appHello first")))
            }
            reply(identity, id, .knownHandlesResult(handles.filter(known.contains)))
        case .ask(_, let question):
            let (bundleID, error, resolve) = state.withLock { ($0.apps[identity], $0.askError, $0.askResolution) }
            guard let bundleID else {
                return reply(identity, id, .error(ErrorReply(.helloRequired, "say appHello first")))
            }
            if let error { return reply(identity, id, .error(error)) }
            let asked = AskedQuestion(
                question: question, childMemberID: "kid", appBundleID: bundleID, askingDeviceID: "kid-tablet",
                askedAt: Date(timeIntervalSince1970: 1_750_000_000)
            )
            reply(identity, id, .askAccepted(asked, resolve?(question)))
        case .appAck(let inboxID):
            state.withLock { state in
                state.acks.append(inboxID)
                state.inbox.removeAll { $0.0 == inboxID }
            }
            reply(identity, id, .ok)
        default:
            reply(identity, id, .error(ErrorReply(.unknownMessageType, "not an app message")))
        }
    }

    private func reply(_ identity: [UInt8], _ requestID: UInt64, _ message: Message) {
        loop.send([identity, MessageCodec.encode(message, requestID: requestID)], on: 0)
    }
}
