import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

/// An app's link to the device daemon for Declared Age Range: opened on first use, re-opened after a transport
/// failure; it routes the daemon's `update` pushes to requests waiting on a prompt and to live `updates` iterations.
actor AgeRangeConnection {
    /// How often live iterations re-register with the daemon, which forgets watchers when it restarts.
    static let rewatchInterval: Duration = .seconds(5)
    static let keptOutcomes = 64

    let socketPath: String
    let bundleID: BundleID
    let timeout: Duration
    nonisolated let peerName: String
    private let session: LocalSession
    /// The daemon's `update` pushes, from the session's reader to `deliver`.
    private let pushed: AsyncStream<(promptID: UUID?, answer: AgeRangeAnswer)>
    private var pushConsumer: Task<Void, Never>?

    private var outcomes: [UUID: AgeRangeAnswer] = [:]
    private var outcomeOrder: [UUID] = []
    private var outcomeWaiters: [UUID: [UInt64: CheckedContinuation<AgeRangeAnswer?, Never>]] = [:]
    private var nextToken: UInt64 = 0

    private var watchers: [UInt64: AsyncStream<AgeRangeService.Response>.Continuation] = [:]
    private var watchTask: Task<Void, Never>?
    /// True once the daemon acknowledged a watch on the current connection.
    private(set) var isWatching = false

    init(socketPath: String, bundleID: BundleID, timeout: Duration) {
        self.socketPath = socketPath
        self.bundleID = bundleID
        self.timeout = timeout
        let peerName = "device daemon at \(socketPath)"
        self.peerName = peerName
        let (pushed, sink) = AsyncStream.makeStream(of: (promptID: UUID?, answer: AgeRangeAnswer).self)
        self.pushed = pushed
        session = LocalSession(socketPath: socketPath, peer: peerName) { envelope in
            if case .ageRange(.update(_, let promptID, let answer)) = envelope.message {
                sink.yield((promptID, answer))
            }
        }
    }

    /// Sends `message` and returns the reply, connecting first when needed; an error reply is thrown as `ErrorReply`.
    func request(_ message: Message) async throws -> Message {
        let client = try await connectedClient()
        do {
            return try await client.request(message, timeout: timeout)
        } catch {
            await discard(client, after: error)
            throw error
        }
    }

    /// The outcome of prompt `id`, as the daemon pushes it; nil if none came within `deadline` or the task was cancelled.
    func outcome(of id: UUID, within deadline: Duration) async -> AgeRangeAnswer? {
        if let known = outcomes[id] { return known }
        nextToken += 1
        let token = nextToken
        let timer = Task { [weak self] in
            try? await Task.sleep(for: deadline)
            await self?.resolveWaiter(id, token: token, with: nil)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcomeWaiters[id, default: [:]][token] = continuation
            }
        } onCancel: {
            Task { await self.resolveWaiter(id, token: token, with: nil) }
        }
    }

    /// Closes the connection and ends live iterations; a later request connects again.
    func close() async {
        watchTask?.cancel()
        watchTask = nil
        for continuation in watchers.values { continuation.finish() }
        watchers = [:]
        for waiters in outcomeWaiters.values { for waiter in waiters.values { waiter.resume(returning: nil) } }
        outcomeWaiters = [:]
        isWatching = false
        await session.close()
    }

    // MARK: watchers

    func addWatcher(_ id: UInt64, _ continuation: AsyncStream<AgeRangeService.Response>.Continuation) {
        watchers[id] = continuation
        guard watchTask == nil else { return }
        watchTask = Task { await keepWatching() }
    }

    func removeWatcher(_ id: UInt64) {
        watchers[id] = nil
        if watchers.isEmpty {
            watchTask?.cancel()
            watchTask = nil
        }
    }

    /// Registers with the daemon, again after every reconnect and every `rewatchInterval`, while iterations live.
    private func keepWatching() async {
        while !Task.isCancelled, !watchers.isEmpty {
            do {
                _ = try await request(.ageRange(.watch(app: bundleID)))
                isWatching = true
            } catch {
                isWatching = false
            }
            try? await Task.sleep(for: isWatching ? Self.rewatchInterval : .milliseconds(200))
        }
    }

    // MARK: pushes

    private func deliver(_ promptID: UUID?, _ answer: AgeRangeAnswer) {
        guard let promptID else {
            for continuation in watchers.values { continuation.yield(AgeRangeService.Response(answer)) }
            return
        }
        if outcomes[promptID] == nil {
            outcomes[promptID] = answer
            outcomeOrder.append(promptID)
            if outcomeOrder.count > Self.keptOutcomes { outcomes[outcomeOrder.removeFirst()] = nil }
        }
        for waiter in (outcomeWaiters.removeValue(forKey: promptID) ?? [:]).values { waiter.resume(returning: answer) }
    }

    private func resolveWaiter(_ id: UUID, token: UInt64, with answer: AgeRangeAnswer?) {
        guard let waiter = outcomeWaiters[id]?.removeValue(forKey: token) else { return }
        if outcomeWaiters[id]?.isEmpty == true { outcomeWaiters[id] = nil }
        waiter.resume(returning: answer)
    }

    // MARK: connecting

    private func connectedClient() async throws -> LocalClient {
        if let client = await session.current { return client }
        guard LocalEndpoints.socketExists(socketPath) else {
            throw AgeRangeService.Failure.notAvailable(reason: .daemonNotRunning(socketPath: socketPath))
        }
        guard Identifier.isValidBundleID(bundleID) else {
            throw AgeRangeService.Failure.invalidRequest(
                reason: "bundle id \"\(bundleID)\" must be 1-255 characters of A-Z a-z 0-9 . _ -")
        }
        if pushConsumer == nil {
            let pushed = self.pushed
            pushConsumer = Task { [weak self] in
                for await push in pushed { await self?.deliver(push.promptID, push.answer) }
            }
        }
        return try await session.connected()
    }

    private func discard(_ client: LocalClient, after error: any Error) async {
        if await session.discard(client, after: error) { isWatching = false }
    }
}
