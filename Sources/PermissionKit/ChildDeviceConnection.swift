import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

/// An app's link to the child-device daemon: opened on first use, introduced with `appHello`, re-opened (and
/// re-introduced) after a transport failure, and kept alive while someone iterates responses.
actor ChildDeviceConnection {
    /// How often a live iteration re-introduces the app by default. A daemon that restarted sees the same socket
    /// reconnect without knowing the app; a fresh hello tells it, and makes it push whatever waits in the app's inbox.
    static let defaultKeepAliveInterval: Duration = .seconds(10)
    static let minimumBackoff: Duration = .milliseconds(100)
    static let maximumBackoff: Duration = .seconds(5)

    let socketPath: String
    let bundleID: BundleID
    let timeout: Duration
    let keepAliveInterval: Duration
    /// Names the daemon in transport errors.
    let peerName: String
    private let hub: ResponseHub
    private let session: LocalSession
    private var maintenance: Task<Void, Never>?
    private var maintenanceToken: UInt64 = 0
    private var lastHello: ContinuousClock.Instant?

    /// The child the daemon serves, from its last welcome.
    private(set) var memberID: MemberID?
    /// Whether the daemon was linked to its broker at its last welcome.
    private(set) var brokerConnected = false

    init(socketPath: String, bundleID: BundleID, timeout: Duration, keepAliveInterval: Duration, hub: ResponseHub) {
        self.socketPath = socketPath
        self.bundleID = bundleID
        self.timeout = timeout
        self.keepAliveInterval = keepAliveInterval
        let peerName = "child-device at \(socketPath)"
        self.peerName = peerName
        self.hub = hub
        session = LocalSession(socketPath: socketPath, peer: peerName) { envelope in
            if case .appResponse(let inboxID, let asked, let resolution) = envelope.message {
                hub.receive(asked, resolution, inboxID: inboxID)
            }
        }
    }

    /// True when a daemon could be listening at `path`: the socket file exists (Linux abstract sockets, `@name`,
    /// have no file and always count).
    nonisolated static func socketExists(_ path: String) -> Bool {
        LocalEndpoints.socketExists(path)
    }

    /// True while a connection is open.
    var isConnected: Bool { get async { await session.current != nil } }

    /// Sends `message` and returns the reply, connecting first when needed; an error reply is thrown as `ErrorReply`.
    func request(_ message: Message) async throws -> Message {
        let client = try await connectedClient()
        do {
            return try await client.request(message, timeout: timeout)
        } catch let reply as ErrorReply where reply.code == .helloRequired {
            // The daemon lost track of this app (it restarted and the socket reconnected): introduce it again, retry once.
            do {
                try await hello(on: client)
                return try await client.request(message, timeout: timeout)
            } catch {
                await discard(client, after: error)
                throw error
            }
        } catch {
            await discard(client, after: error)
            throw error
        }
    }

    /// The child the daemon serves. When its last welcome named nobody (the daemon had never been welcomed by its
    /// broker), the app says hello again first: the daemon may have been welcomed since.
    func servedMember() async throws -> MemberID? {
        let client = try await connectedClient()
        if memberID == nil {
            do {
                try await hello(on: client)
            } catch {
                await discard(client, after: error)
                throw error
            }
        }
        return memberID
    }

    /// Tells the daemon the app has taken inbox entry `inboxID`. Without a connection it does nothing: the daemon
    /// pushes the entry again after the next hello, and the hub acknowledges it then.
    func acknowledge(_ inboxID: UInt64) async {
        guard let client = await session.current else { return }
        _ = try? await client.request(.appAck(inboxID: inboxID), timeout: timeout)
    }

    /// Keeps a connection open, retrying with backoff, while the hub has subscribers.
    func keepReceiving() {
        guard maintenance == nil else { return }
        maintenanceToken += 1
        let token = maintenanceToken
        maintenance = Task { await maintain(token: token) }
    }

    /// Closes the connection; a later request opens a new one.
    func close() async {
        maintenance?.cancel()
        maintenance = nil
        lastHello = nil
        await session.close()
    }

    // MARK: - Connecting

    private func connectedClient() async throws -> LocalClient {
        if let client = await session.current { return client }
        guard Self.socketExists(socketPath) else {
            throw AskFailure.notAvailable(reason: .daemonNotRunning(socketPath: socketPath))
        }
        guard Identifier.isValidBundleID(bundleID) else {
            throw AskFailure.notAvailable(
                reason: .connectionFailed(
                    socketPath: socketPath,
                    reason: "bundle id \"\(bundleID)\" must be 1-255 characters of A-Z a-z 0-9 . _ -"
                ))
        }
        return try await session.connected { [self] client in try await hello(on: client) }
    }

    private func hello(on client: LocalClient) async throws {
        let reply = try await client.request(.appHello(bundleID: bundleID), timeout: timeout)
        guard case .appWelcome(let memberID, let brokerConnected) = reply else {
            throw TransportError.unexpectedReply(peer: peerName, type: reply.typeCode)
        }
        self.memberID = memberID
        self.brokerConnected = brokerConnected
        lastHello = .now
    }

    /// Drops `client` after a transport failure, so the next request opens a fresh connection and says hello again.
    private func discard(_ client: LocalClient, after error: any Error) async {
        if await session.discard(client, after: error) { lastHello = nil }
    }

    // MARK: - Keeping a connection for live iterations

    private func maintain(token: UInt64) async {
        var backoff = Self.minimumBackoff
        while !Task.isCancelled, hub.hasSubscribers {
            do {
                if let client = await session.current {
                    if isKeepAliveDue {
                        do {
                            try await hello(on: client)
                        } catch {
                            await discard(client, after: error)
                            throw error
                        }
                    }
                } else {
                    _ = try await connectedClient()
                }
                backoff = Self.minimumBackoff
                try await idleUntilKeepAliveDue()
            } catch {
                if Task.isCancelled { break }
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, Self.maximumBackoff)
            }
        }
        if maintenanceToken == token { maintenance = nil }
    }

    private var isKeepAliveDue: Bool {
        guard let lastHello else { return true }
        return lastHello.duration(to: .now) >= keepAliveInterval
    }

    /// Sleeps in short slices, so a dropped connection or the last iteration ending is noticed quickly.
    private func idleUntilKeepAliveDue() async throws {
        while await session.current != nil, hub.hasSubscribers, !isKeepAliveDue {
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
