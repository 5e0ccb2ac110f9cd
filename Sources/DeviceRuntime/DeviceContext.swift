public import HearthCore
public import HearthProtocol
public import Logging

/// What a device behaviour may use of its daemon: who the broker says this device is, the state of the link,
/// commands to the broker, replies and pushes on the local socket, and the log. `DeviceRuntime` is the one real
/// context; a behaviour's unit tests use a fake.
public protocol DeviceContext: Sendable {
    /// The daemon's name in logs and errors, e.g. `child-device`.
    var daemonName: String { get }
    var logger: Logger { get }
    /// The broker's word on who this device is, from this run's last welcome.
    var identity: DeviceIdentity? { get }
    /// Whether the link to the broker is up (welcomed, caught up, pings answered).
    var isLinked: Bool { get }
    /// `isLinked` now, then each time it changes, until the caller stops iterating: the link's changes are pushed.
    func linkChanges() -> AsyncStream<Bool>
    /// Whether the broker's last word on this device's key was a refusal.
    var isRefusedByBroker: Bool { get }
    /// The device's public key, as enrolled in the broker's family file.
    var publicKey: String { get }
    /// The member and device ids of the last welcome of any run (kept in the device's store).
    func rememberedIdentity() async -> (memberID: MemberID?, deviceID: DeviceID?)
    /// Sends a command to the broker and returns its reply; an `error` reply is thrown as `ErrorReply`.
    func request(_ message: Message, timeout: Duration) async throws -> Message
    /// Sends a message to a local client (a reply, or a push with request id 0).
    func sendLocal(_ message: Message, to routingID: [UInt8], requestID: UInt64)
    /// Runs `work` beside the daemon, as a child of the task group its run owns (a behaviour's timer or retry, set
    /// off by a command or an event): when the daemon stops, `work` is cancelled and awaited, so it never outlives
    /// the daemon; handed over once the daemon is stopping, it does not run. Cancelled `work` should end without
    /// acting, as the daemon is going away.
    func addTask(_ work: @escaping @Sendable () async -> Void)
}

extension DeviceContext {
    /// Sends a command to the broker with the usual deadline.
    public func request(_ message: Message) async throws -> Message {
        try await request(message, timeout: .seconds(3))
    }

    /// Pushes a message to a local client.
    public func sendLocal(_ message: Message, to routingID: [UInt8]) {
        sendLocal(message, to: routingID, requestID: 0)
    }

    /// Whether the link is up, waiting at most `limit` for it to come up; wakes as soon as it does.
    public func waitUntilLinked(within limit: Duration) async -> Bool {
        let changes = linkChanges()
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await linked in changes where linked { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            // The first to end decides; cancelling the other ends its wait (and stops the listening).
            let linked = await group.next() ?? false
            group.cancelAll()
            return linked
        }
    }

    /// This run's identity, else the one remembered from an earlier run.
    public func knownIdentity() async -> (memberID: MemberID?, deviceID: DeviceID?) {
        if let identity { return (identity.memberID, identity.deviceID) }
        return await rememberedIdentity()
    }
}
