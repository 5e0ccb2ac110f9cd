import CZeroMQ
import Foundation
import HearthCore
import Synchronization

/// Owns a daemon's sockets on one dedicated thread running `zmq_poll`.
///
/// ZeroMQ sockets are not thread-safe and their calls block, so no `zmq_*` call happens on Swift's cooperative pool:
/// inbound messages leave this thread through `inbound` (an `AsyncSequence` of batches), outbound ones enter through
/// `send(_:on:)`, a locked queue plus an eventfd wake-up.
public final class SocketLoop: Sendable {
    /// A message read from the socket at index `socket` of the loop's specs.
    public struct Inbound: Sendable {
        public let socket: Int
        public let message: ZMQMessage
    }

    /// One socket the loop creates, configures and owns.
    public struct Spec: Sendable {
        public var type: ZMQSocketType
        /// Sets options and binds or connects; runs on the loop thread before polling starts.
        public var configure: @Sendable (ZMQSocket) throws -> Void
        /// Runs on the loop thread for each message read from this socket, before it is queued; returns true when it
        /// has dealt with the message. For work that must happen right after the read (ZAP replies, XPUB
        /// subscriptions).
        public var intercept: (@Sendable (ZMQMessage, ZMQSocket) -> Bool)?
        /// Frames of a message copied out at most; the rest are freed unread (`ZMQMessage.discardedFrames`).
        public var maxFrames: Int

        public init(
            _ type: ZMQSocketType, maxFrames: Int, configure: @escaping @Sendable (ZMQSocket) throws -> Void,
            intercept: (@Sendable (ZMQMessage, ZMQSocket) -> Bool)? = nil
        ) {
            self.type = type
            self.maxFrames = maxFrames
            self.configure = configure
            self.intercept = intercept
        }

        /// A socket whose messages are copied out whole.
        public init(
            _ type: ZMQSocketType, configure: @escaping @Sendable (ZMQSocket) throws -> Void,
            intercept: (@Sendable (ZMQMessage, ZMQSocket) -> Bool)? = nil
        ) {
            self.init(type, maxFrames: .max, configure: configure, intercept: intercept)
        }
    }

    /// One message for `send(_:)`: frames for the socket at index `socket` of the loop's specs.
    public struct Outgoing: Sendable {
        public var socket: Int
        public var frames: [[UInt8]]

        public init(_ frames: [[UInt8]], on socket: Int) {
            self.socket = socket
            self.frames = frames
        }
    }

    private enum Outbound: Sendable {
        case send(socket: Int, frames: [[UInt8]])
        case sendAll([Outgoing])
        case perform(@Sendable ([ZMQSocket]) -> Void)
        case reopen(
            socket: Int, configure: @Sendable (ZMQSocket) throws -> Void, done: @Sendable ((any Error)?) -> Void)
    }

    private struct State: ~Copyable {
        var outbound: [Outbound] = []
        var stopping = false
        var stopped = false
        var started: CheckedContinuation<Void, any Error>?
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
        var dropped: UInt64 = 0
    }

    /// Everything read from the sockets and not intercepted, in batches.
    public let inbound = Mailbox<Inbound>()
    private let name: String
    private let context: ZMQContext
    private let specs: [Spec]
    private let wake: WakeSignal
    private let inboundCapacity: Int
    private let state = Mutex(State())

    /// A loop over `sockets` in a context of its own; nothing runs until `start()`. `configureContext` sets the
    /// context's options before any socket exists.
    public init(
        name: String, sockets: [Spec], inboundCapacity: Int = 50_000,
        configureContext: (ZMQContext) throws -> Void = { _ in }
    ) throws {
        self.name = name
        self.context = try ZMQContext()
        try configureContext(context)
        self.specs = sockets
        self.inboundCapacity = inboundCapacity
        self.wake = try WakeSignal()
    }

    /// Starts the thread; returns once every socket is configured, or throws the first configuration error.
    public func start() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { $0.started = continuation }
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
    }

    /// Queues frames for the socket at index `socket`; safe from any thread. False once the loop has stopped.
    @discardableResult
    public func send(_ frames: [[UInt8]], on socket: Int) -> Bool {
        enqueue(.send(socket: socket, frames: frames))
    }

    /// Queues `messages` in order, under one lock and with at most one wake-up of the loop thread; safe from any
    /// thread. The loop hands them to libzmq back to back, so that consecutive messages for one peer are usually
    /// queued together when libzmq's I/O thread writes that peer's connection. False once the loop has stopped.
    @discardableResult
    public func send(_ messages: [Outgoing]) -> Bool {
        if messages.isEmpty { return state.withLock { !$0.stopping } }
        return enqueue(.sendAll(messages))
    }

    /// Runs `body` on the loop thread with the sockets, in order with queued sends.
    @discardableResult
    public func perform(_ body: @escaping @Sendable ([ZMQSocket]) -> Void) -> Bool {
        enqueue(.perform(body))
    }

    /// Runs `body` on the loop thread and returns its result, e.g. a bound endpoint.
    public func query<T: Sendable>(_ body: @escaping @Sendable ([ZMQSocket]) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let queued = perform { sockets in
                continuation.resume(with: Result { try body(sockets) })
            }
            if !queued { continuation.resume(throwing: ZMQError(code: ETERM, operation: "SocketLoop.query")) }
        }
    }

    /// Closes the socket at index `socket`, dropping every connection it has and anything queued on it, and replaces it
    /// with a new socket of the same type set up by `configure` (which may bind the same endpoint again).
    ///
    /// libzmq cannot close one peer's connection on a ROUTER or XPUB socket; reopening is how a broker cuts off a
    /// revoked key (the honest peers reconnect and authenticate again).
    public func reopen(_ socket: Int, configure: @escaping @Sendable (ZMQSocket) throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let queued = enqueue(
                .reopen(
                    socket: socket, configure: configure,
                    done: { error in
                        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                    }))
            if !queued { continuation.resume(throwing: ZMQError(code: ETERM, operation: "SocketLoop.reopen")) }
        }
    }

    /// Messages dropped because a socket would have blocked (high-water mark reached, or no peer).
    public var droppedCount: UInt64 { state.withLock { $0.dropped } }

    private func enqueue(_ item: Outbound) -> Bool {
        let (accepted, first) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopping else { return (false, false) }
            state.outbound.append(item)
            return (true, state.outbound.count == 1)
        }
        // Only the first item of a burst needs to wake the thread: it drains the whole queue.
        if first { wake.signal() }
        return accepted
    }

    /// Flushes queued sends, closes the sockets (each with the linger its spec set), and ends `inbound`. Idempotent.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.stopped { return true }
                state.stopping = true
                state.stopWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { wake.signal() }
        }
    }

    private func run() {
        ThreadName.set(name)
        var sockets: [ZMQSocket] = []
        do {
            for spec in specs {
                let socket = try ZMQSocket(context: context, type: spec.type)
                sockets.append(socket)
                try spec.configure(socket)
            }
        } catch {
            for socket in sockets {
                try? socket.setLinger(milliseconds: 0)
                socket.close()
            }
            finish(startError: error)
            return
        }
        let started = state.withLock { state in
            defer { state.started = nil }
            return state.started
        }
        started?.resume()

        var full = ZMQPoller()
        for socket in sockets { full.add(socket) }
        let wakeIndex = full.add(fileDescriptor: wake.fileDescriptor)
        var wakeOnly = ZMQPoller()
        wakeOnly.add(fileDescriptor: wake.fileDescriptor)

        while true {
            let (work, stopping) = state.withLock { state in
                defer { state.outbound = [] }
                return (state.outbound, state.stopping)
            }
            if flush(work, &sockets) {
                full = ZMQPoller()
                for socket in sockets { full.add(socket) }
                _ = full.add(fileDescriptor: wake.fileDescriptor)
            }
            if stopping { break }

            // Backpressure: when the consumer is behind, stop reading so ZeroMQ's high-water marks push back on peers.
            if inbound.count >= inboundCapacity {
                _ = try? wakeOnly.poll(timeoutMilliseconds: 5)
                if wakeOnly.isReadable(0) { wake.drain() }
                continue
            }
            do {
                _ = try full.poll(timeoutMilliseconds: -1)
            } catch {
                if let error = error as? ZMQError, error.isTerminated { break }
                continue
            }
            if full.isReadable(wakeIndex) { wake.drain() }
            var batch: [Inbound] = []
            for (index, socket) in sockets.enumerated() where full.isReadable(index) {
                let intercept = specs[index].intercept
                let maxFrames = specs[index].maxFrames
                // Bounded per pass so one busy socket cannot starve the others or the outbound queue.
                for _ in 0..<1024 {
                    guard let message = try? socket.receive(dontWait: true, maxFrames: maxFrames) else { break }
                    if let intercept, intercept(message, socket) { continue }
                    batch.append(Inbound(socket: index, message: message))
                }
            }
            inbound.push(batch)
        }
        for socket in sockets { socket.close() }
        finish(startError: nil)
    }

    /// Returns true when a socket was replaced, so the poller must be rebuilt.
    private func flush(_ work: [Outbound], _ sockets: inout [ZMQSocket]) -> Bool {
        var dropped: UInt64 = 0
        var replaced = false
        for item in work {
            switch item {
            case .send(let index, let frames):
                if !Self.send(frames, on: index, sockets) { dropped += 1 }
            case .sendAll(let messages):
                for message in messages where !Self.send(message.frames, on: message.socket, sockets) { dropped += 1 }
            case .perform(let body):
                body(sockets)
            case .reopen(let index, let configure, let done):
                guard sockets.indices.contains(index) else {
                    done(ZMQError(code: EINVAL, operation: "SocketLoop.reopen"))
                    continue
                }
                try? sockets[index].setLinger(milliseconds: 0)
                sockets[index].close()
                replaced = true
                do {
                    let socket = try ZMQSocket(context: context, type: specs[index].type)
                    sockets[index] = socket
                    // The old listener is torn down asynchronously by libzmq's I/O thread: retry the bind briefly.
                    var attempt = 0
                    while true {
                        do {
                            try configure(socket)
                            break
                        } catch let error as ZMQError where error.code == EADDRINUSE && attempt < 100 {
                            attempt += 1
                            usleep(10_000)
                        }
                    }
                    done(nil)
                } catch {
                    done(error)
                }
            }
        }
        if dropped > 0 { state.withLock { $0.dropped += dropped } }
        return replaced
    }

    /// False when the socket would have blocked. A message for an index the loop has no socket at is ignored.
    private static func send(_ frames: [[UInt8]], on index: Int, _ sockets: [ZMQSocket]) -> Bool {
        guard sockets.indices.contains(index) else { return true }
        return (try? sockets[index].send(frames, dontWait: true)) ?? false
    }

    private func finish(startError: (any Error)?) {
        // Every socket is closed by now, so terminating cannot block beyond the lingers the specs chose.
        context.terminate()
        inbound.finish()
        wake.close()
        let (started, waiters) = state.withLock { state in
            state.stopping = true
            state.stopped = true
            defer {
                state.started = nil
                state.stopWaiters = []
            }
            return (state.started, state.stopWaiters)
        }
        if let started {
            if let startError { started.resume(throwing: startError) } else { started.resume() }
        }
        for waiter in waiters { waiter.resume() }
    }
}
