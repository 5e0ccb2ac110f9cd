import HearthProtocol
import Logging
import Synchronization
import ZeroMQ

/// Which broker the device talks to: the sockets' set-up for one broker, redirects, and moving on from a broker
/// that does not answer (docs/PROTOCOL.md §6.2).
extension DeviceRuntime {
    /// The handshake monitor's endpoint for the DEALER of move `generation` (an inproc endpoint is not reused).
    static func monitorEndpoint(_ generation: Int) -> String { "inproc://broker-link-monitor-\(generation)" }

    /// The DEALER's set-up for commands to `broker`, with its handshake monitor on `monitor`.
    static func commands(
        to broker: BrokerAddress, keys: CurveKeyPair, monitor: String
    ) -> @Sendable (ZMQSocket) throws -> Void {
        { socket in
            try secure(socket, broker: broker, keys: keys)
            try socket.monitor(
                monitor, events: ZMQMonitorEvent.handshakeFailedAuth | ZMQMonitorEvent.handshakeSucceeded)
            try socket.connect(broker.ingress)
        }
    }

    /// The SUB's set-up for events from `broker`.
    static func events(from broker: BrokerAddress, keys: CurveKeyPair) -> @Sendable (ZMQSocket) throws -> Void {
        { socket in
            try secure(socket, broker: broker, keys: keys)
            // Everything: the broker narrows it to this device's own member topic.
            try socket.subscribe([])
            try socket.connect(broker.egress)
        }
    }

    /// The PAIR reading the DEALER's handshake events from `endpoint`.
    static func monitorReader(_ endpoint: String) -> @Sendable (ZMQSocket) throws -> Void {
        { socket in
            try socket.setLinger(milliseconds: 0)
            try socket.connect(endpoint)
        }
    }

    private static func secure(_ socket: ZMQSocket, broker: BrokerAddress, keys: CurveKeyPair) throws {
        try socket.setLinger(milliseconds: 200)
        try socket.makeCurveClient(serverPublicKey: broker.publicKey, keys: keys)
        try socket.setMaxMessageSize(Int64(Wire.maxCurveMessageSize))
        try socket.setReconnectInterval(milliseconds: 100, max: 2000)
        // A device finds a dead broker by its PINGs; it advertises no TTL, which would make the broker keep (and
        // cancel, by a scan of all of them, on every PING) a timer per device connection (libzmq 4.3).
        try socket.setHeartbeat(intervalMilliseconds: 2000, timeoutMilliseconds: 6000, ttlMilliseconds: 0)
    }

    /// A reply naming another broker as the owner of this device's family: moves there (unless the redirect is
    /// stale) and throws `brokerUnavailable`, so the link says hello there and a behaviour retries its command.
    func followIfRedirect(_ reply: Message) async throws {
        guard let (owner, partition, epoch) = Self.redirect(in: reply) else { return }
        let moved = link.withLock { $0.redirected(to: owner, partition: partition, epoch: epoch) }
        logger.info(
            "redirected by the broker",
            metadata: [
                "owner": "\(owner.ingress)", "partition": "\(partition)", "epoch": "\(epoch)",
                "moving": "\(moved.map { $0.ingress } ?? "no")",
            ])
        await moveSockets()
        throw ErrorReply(.brokerUnavailable, "redirected to the broker at \(owner.ingress)")
    }

    /// The broker the link is to did not answer: the next one, if there is another to try.
    func moveOnFromUnreachable() async {
        guard let next = link.withLock({ $0.unreachable() }) else { return }
        logger.info("trying another broker", metadata: ["broker": "\(next.ingress)"])
        await moveSockets()
    }

    /// Reconnects the DEALER and the SUB to the link's target (new sockets: a CURVE client's server key is set
    /// before it connects). One move runs at a time; it runs again if the target changed meanwhile.
    func moveSockets() async {
        let start = sockets.withLock { state -> Bool in
            defer { state.moving = true }
            return !state.moving
        }
        guard start else { return }
        while true {
            let target: BrokerAddress? = sockets.withLock { state in
                let target = link.withLock { $0.route.target }
                if target == state.on { state.moving = false }
                return target == state.on ? nil : target
            }
            guard let target else { return }
            await reopenSockets(to: target)
            sockets.withLock { $0.on = target }
        }
    }

    private func reopenSockets(to broker: BrokerAddress) async {
        let generation = monitorGeneration.add(1, ordering: .relaxed).newValue
        let monitor = Self.monitorEndpoint(generation)
        let keys = self.keys
        do {
            try await loop.reopen(Slot.monitor, configure: Self.monitorReader(monitor))
            try await loop.reopen(Slot.broker, configure: Self.commands(to: broker, keys: keys, monitor: monitor))
            try await loop.reopen(Slot.events, configure: Self.events(from: broker, keys: keys))
        } catch {
            logger.error("reconnecting to another broker failed", metadata: ["error": "\(error)"])
        }
    }
}

extension DeviceRuntime {
    /// The owner, partition and epoch a `redirect` reply names; nil for any other reply.
    static func redirect(in reply: Message) -> (owner: BrokerAddress, partition: UInt32, epoch: UInt64)? {
        guard case .redirect(let redirect) = reply else { return nil }
        let owner = BrokerAddress(ingress: redirect.ingress, egress: redirect.egress, publicKey: redirect.publicKey)
        return (owner, redirect.partition, redirect.epoch)
    }
}
