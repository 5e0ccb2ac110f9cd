public import HearthProtocol
import Synchronization

/// Matches replies to requests by request id, with a deadline on each.
public final class RequestTracker: Sendable {
    private struct State: ~Copyable {
        var nextID: UInt64 = 1
        var waiting: [UInt64: CheckedContinuation<Envelope, any Error>] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let peer: String

    /// A tracker for requests to `peer` (named in timeout errors).
    public init(peer: String) {
        self.peer = peer
    }

    /// Registers a request, calls `send` with its id, and waits for the reply or the deadline.
    /// `send` returns false when the frame could not be queued; the request then fails as closed.
    public func request(timeout: Duration, send: (UInt64) -> Bool) async throws -> Envelope {
        let id = state.withLock { state in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled, let self else { return }
            self.fail(id, TransportError.timeout(peer: self.peer, seconds: seconds))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let accepted = state.withLock { state -> Bool in
                    guard !state.closed else { return false }
                    state.waiting[id] = continuation
                    return true
                }
                guard accepted else {
                    continuation.resume(throwing: TransportError.closed(peer: peer))
                    return
                }
                if !send(id) { fail(id, TransportError.closed(peer: peer)) }
            }
        } onCancel: {
            fail(id, CancellationError())
        }
    }

    /// Hands a reply to its waiting request; false if none waits for its id (late or unsolicited).
    @discardableResult
    public func resolve(_ envelope: Envelope) -> Bool {
        let waiter = state.withLock { $0.waiting.removeValue(forKey: envelope.requestID) }
        waiter?.resume(returning: envelope)
        return waiter != nil
    }

    /// Fails one waiting request.
    public func fail(_ id: UInt64, _ error: any Error) {
        state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(throwing: error)
    }

    /// Fails every waiting request and refuses new ones.
    public func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return state.waiting
        }
        for (_, waiter) in waiters { waiter.resume(throwing: TransportError.closed(peer: peer)) }
    }
}
