public import HearthProtocol

/// An app library's connection to a local daemon: opened on first use and introduced by the caller, dropped after a
/// transport failure so that the next use opens a fresh one, its pushes handed to `receive`.
public actor LocalSession {
    public let socketPath: String
    /// Names the daemon in transport errors.
    public let peer: String
    private let receive: @Sendable (Envelope) async -> Void

    private var client: LocalClient?
    private var connecting: Task<LocalClient, any Error>?
    /// Bumped by `close()`, so a connection still opening when it ran is thrown away rather than installed.
    private var generation: UInt64 = 0
    private var pump: Task<Void, Never>?

    /// A session with the daemon at `socketPath`; nothing connects until `connected(introduce:)`.
    public init(socketPath: String, peer: String, receive: @escaping @Sendable (Envelope) async -> Void) {
        self.socketPath = socketPath
        self.peer = peer
        self.receive = receive
    }

    /// The open client, if any.
    public var current: LocalClient? { client }

    /// The open client, or a new one once `introduce` succeeded on it (concurrent callers share one opening).
    public func connected(
        introduce: @escaping @Sendable (LocalClient) async throws -> Void = { _ in }
    ) async throws -> LocalClient {
        if let client { return client }
        if let connecting { return try await connecting.value }
        let generation = self.generation
        let task = Task { try await open(generation: generation, introduce: introduce) }
        connecting = task
        return try await task.value
    }

    private func open(
        generation: UInt64, introduce: @Sendable (LocalClient) async throws -> Void
    ) async throws -> LocalClient {
        defer { if self.generation == generation { connecting = nil } }
        let client = try LocalClient(endpoint: LocalEndpoints.ipc(socketPath), peer: peer)
        do {
            try await client.start()
            try await introduce(client)
        } catch {
            await client.close()
            throw error
        }
        guard self.generation == generation else {
            await client.close()
            throw TransportError.closed(peer: peer)
        }
        self.client = client
        let receive = self.receive
        pump = Task.detached {
            for await envelope in client.pushes { await receive(envelope) }
        }
        return client
    }

    /// Drops `client` after a transport failure, so the next use opens a fresh connection; true if it was dropped.
    @discardableResult
    public func discard(_ client: LocalClient, after error: any Error) async -> Bool {
        guard error is TransportError, self.client === client else { return false }
        self.client = nil
        pump?.cancel()
        pump = nil
        await client.close()
        return true
    }

    /// Closes the connection (and one still opening); a later use opens a new one.
    public func close() async {
        generation += 1
        connecting?.cancel()
        connecting = nil
        pump?.cancel()
        pump = nil
        let client = self.client
        self.client = nil
        await client?.close()
    }
}
