import Foundation
public import HearthCore
public import HearthProtocol
public import HearthService
import HearthTransport
public import Logging
public import ServiceLifecycle
import Synchronization
import ZeroMQ

/// What both device daemons share: the CURVE link to the broker (DEALER for commands, SUB for events), catching up
/// by sequence number, and the local ipc socket; one I/O thread owns all three sockets.
///
/// Delivery follows the ZeroMQ guide's Clone pattern: subscribe first, then sync everything after the last applied
/// number; discard what is at or below it; a gap, or a heartbeat showing a higher head, triggers another sync.
public final class DeviceRuntime: Service, DeviceContext, Sendable {
    enum Slot {
        static let broker = 0
        static let events = 1
        static let local = 2
        /// Handshake events of the broker link, to tell a refused key from a broker that is away.
        static let monitor = 3
    }

    public let options: DeviceOptions
    public let behavior: any DeviceBehavior
    public let logger: Logger
    public let store: DeviceStore
    let keys: CurveKeyPair
    let loop: SocketLoop
    private let tracker: RequestTracker
    let link: LinkCell
    /// Bumped at each move to another broker: the handshake monitor of each DEALER gets an endpoint of its own.
    let monitorGeneration = Atomic<Int>(0)
    private let metrics = DeviceMetrics()
    /// Work set off while the daemon runs (local requests, syncs, behaviours' timers), run by `run()`'s task group.
    private let owned = OwnedWork()
    /// The broker the sockets are connected to, and whether a move to another is under way.
    let sockets: Mutex<(on: BrokerAddress, moving: Bool)>

    /// A daemon over `store` (opened with `behavior`'s stores' tables); the daemons' factories build it.
    public init(options: DeviceOptions, store: DeviceStore, behavior: some DeviceBehavior, logger: Logger) throws {
        self.options = options
        self.behavior = behavior
        self.logger = logger
        try DeviceStore.prepareStateDirectory(options.stateDirectory)
        // An abstract socket (`@name`) has no file nor directory.
        if !options.localSocket.hasPrefix("@") {
            try LocalEndpoints.prepareSocketDirectory((options.localSocket as NSString).deletingLastPathComponent)
        }
        keys = try KeyFiles.loadOrGenerate(secretPath: options.secretKeyFile)
        self.store = store
        link = LinkCell(BrokerLink(brokers: options.brokers))
        sockets = Mutex((options.brokers[0], false))
        tracker = RequestTracker(peer: "family-broker")
        let keys = self.keys
        let options = self.options
        let first = options.brokers[0]
        loop = try SocketLoop(
            name: "\(behavior.name)-io",
            sockets: [
                .init(.dealer, configure: Self.commands(to: first, keys: keys, monitor: Self.monitorEndpoint(0))),
                .init(.sub, configure: Self.events(from: first, keys: keys)),
                .init(.router) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.setMaxMessageSize(Int64(Wire.maxFrameSize))
                    unlink(options.localSocket)
                    try socket.bind(LocalEndpoints.ipc(options.localSocket))
                    // Only the owning user may talk to the daemon.
                    chmod(options.localSocket, 0o600)
                },
                .init(.pair, configure: Self.monitorReader(Self.monitorEndpoint(0))),
            ])
    }

    /// The device's public key, as enrolled in the broker's family file.
    public var publicKey: String { keys.publicKey }

    /// The broker's word on who this device is, once linked.
    public var identity: DeviceIdentity? { link.withLock { $0.identity } }

    /// Whether the link to the broker is up (welcome received and pings answered).
    public var isLinked: Bool { link.withLock { $0.isLinked } }

    /// Whether the link is up, then each change: every change of the link goes through `LinkCell`, which pushes it.
    public func linkChanges() -> AsyncStream<Bool> { link.changes() }

    /// Whether the broker's last word on this device's key was a refusal (its ZAP handler said it is not enrolled).
    public var isRefusedByBroker: Bool { link.withLock { $0.isKeyRefused } }

    /// Where the link to the broker stands.
    package var linkState: BrokerLink { link.withLock { $0 } }

    /// The daemon's name, e.g. `child-device`.
    public var daemonName: String { behavior.name }

    public func rememberedIdentity() async -> (memberID: MemberID?, deviceID: DeviceID?) {
        let member = try? await store.value("member_id")
        let device = try? await store.value("device_id")
        return (member ?? nil, device ?? nil)
    }

    /// Ready while linked to the broker (the `/readyz` probe).
    public var readiness: HealthStatus {
        let (linked, identity, broker) = link.withLock { ($0.isLinked, $0.identity, $0.route.target) }
        guard linked, let identity else {
            return HealthStatus(ok: false, "not linked to the broker at \(broker.ingress)")
        }
        return HealthStatus(
            ok: true, "linked to the broker at \(broker.ingress) as \(identity.deviceID) of \(identity.memberID)")
    }

    public func run() async throws {
        try await loop.start()
        logger.info(
            "\(behavior.name) started",
            metadata: [
                "broker": "\(options.brokers[0].ingress)", "socket": "\(options.localSocket)",
                "publicKey": "\(keys.publicKey)",
            ])
        // Everything the daemon runs is a child of this group: the link, the behaviour's own service, the reading of
        // the sockets, and each piece of work set off meanwhile (`owned`). A stop cancels them all and waits for them,
        // with the sockets still open, so a command in flight is answered (or cancelled) and nothing outlives `run`.
        await withDiscardingTaskGroup { group in
            group.addTask { await self.maintainLink() }
            group.addTask { await self.behavior.serve(context: self) }
            group.addTask {
                await self.receive()
                self.owned.finish()
            }
            await owned.run(in: &group)
            // Stopping: requests to the broker fail at once rather than at their deadlines, then the rest is cancelled.
            tracker.close()
            group.cancelAll()
        }
        await loop.stop()
        unlink(options.localSocket)
        logger.info("\(behavior.name) stopped")
    }

    /// Handles what the sockets bring until a graceful shutdown (or a cancellation) stops the reading.
    private func receive() async {
        await withGracefulShutdownHandler {
            for await batch in loop.inbound {
                await handle(batch)
            }
        } onGracefulShutdown: { [loop] in
            loop.inbound.finish()
        }
    }

    /// Runs `work` as a child of the daemon's task group: cancelled and awaited when the daemon stops.
    public func addTask(_ work: @escaping @Sendable () async -> Void) {
        owned.add(work)
    }

    // MARK: requests

    /// Sends a command to the broker and returns its reply; an `error` reply is thrown as `ErrorReply`.
    public func request(_ message: Message, timeout: Duration) async throws -> Message {
        let loop = self.loop
        let reply = try await tracker.request(timeout: timeout) { id in
            loop.send([MessageCodec.encode(message, requestID: id)], on: Slot.broker)
        }
        if case .error(let error) = reply.message {
            metrics.brokerError(error.code)
            throw error
        }
        try await followIfRedirect(reply.message)
        return reply.message
    }

    /// Sends a message to a local client (reply or push).
    public func sendLocal(_ message: Message, to routingID: [UInt8], requestID: UInt64) {
        loop.send([routingID, MessageCodec.encodeReply(message, requestID: requestID)], on: Slot.local)
    }

    // MARK: inbound

    private func handle(_ batch: [SocketLoop.Inbound]) async {
        var events: [Event] = []
        var behindHead: UInt64?
        for item in batch {
            switch item.socket {
            case Slot.broker:
                guard let frame = item.message.frames.last, let envelope = try? MessageCodec.decode(frame) else {
                    logger.warning("undecodable frame from the broker")
                    continue
                }
                tracker.resolve(envelope)
            case Slot.events:
                switch received(fromEgress: item.message.frames) {
                case .event(let event)?: events.append(event)
                case .eventBatch(let batch)?: events.append(contentsOf: batch)
                case .heartbeat(let head)?: behindHead = max(behindHead ?? 0, head)
                default: break
                }
            case Slot.monitor:
                handshake(item.message.frames)
            case Slot.local:
                serveLocal(item.message.frames)
            default: break
            }
        }
        if !events.isEmpty { await apply(events) }
        if let head = behindHead, head > (try? await store.lastApplied()) ?? 0 { startSync() }
    }

    /// An event, a batch of events or a heartbeat from the broker's egress. Events at or below the last applied number
    /// (they came by pub/sub and by a sync, or again after a reconnect) are dropped before their bodies are decoded.
    private func received(fromEgress frames: [[UInt8]]) -> Message? {
        if frames.count == 2, let sequence = MessageCodec.peekHighestSequence(frames[1]),
            let last = store.knownLastApplied, sequence <= last
        {
            return nil
        }
        guard frames.count == 2, let envelope = try? MessageCodec.decode(frames[1]) else {
            logger.warning("undecodable event frame from the broker")
            return nil
        }
        return envelope.message
    }

    /// A handshake event of the broker link: tells a refused key from a broker that is away.
    private func handshake(_ frames: [[UInt8]]) {
        guard let event = ZMQMonitorEvent(frames: frames) else { return }
        guard event.event == ZMQMonitorEvent.handshakeFailedAuth else {
            if link.withLock({ $0.handshakeSucceeded() }) {
                logger.info("reconnected to the broker: saying hello again, as it may have restarted")
            }
            return
        }
        if link.withLock({ $0.handshakeRefused() }) {
            logger.error(
                "the broker refused this device's key: it is not enrolled",
                metadata: [
                    "publicKey": "\(keys.publicKey)", "status": "\(event.value)",
                ])
        }
    }

    /// A request from a local client, answered by the behaviour (a status ping is answered here).
    private func serveLocal(_ frames: [[UInt8]]) {
        guard frames.count == 2 else { return }
        let routingID = frames[0]
        let envelope: Envelope
        do {
            envelope = try MessageCodec.decode(frames[1])
        } catch {
            let requestID = MessageCodec.peekRequestID(frames[1])
            sendLocal(.error(ErrorReply(error.code, error.description)), to: routingID, requestID: requestID)
            return
        }
        metrics.localRequest(envelope.message)
        if case .ping = envelope.message {
            // A status probe for tools and tests: who this device is and whether it is linked.
            let status = Message.appWelcome(memberID: identity?.memberID, brokerConnected: isLinked)
            sendLocal(status, to: routingID, requestID: envelope.requestID)
            return
        }
        owned.add { [self] in
            if let reply = await behavior.handleLocal(envelope, from: routingID, context: self) {
                sendLocal(reply, to: routingID, requestID: envelope.requestID)
            }
        }
    }

    @discardableResult
    private func apply(_ events: [Event]) async -> Int {
        do {
            let (applied, gap) = try await store.apply(events, behavior: behavior)
            metrics.eventsApplied(applied.count)
            if !applied.isEmpty {
                logApplied(applied)
                await behavior.applied(applied, context: self)
            }
            if let gap {
                metrics.gap()
                // Pub/sub lost something (high-water mark, reconnect, not yet subscribed): the log has it.
                logger.info("gap in events, syncing", metadata: ["expected": "\(gap.expected)", "got": "\(gap.got)"])
                startSync()
            }
            return applied.count
        } catch {
            logger.error("applying events failed", metadata: ["error": "\(error)"])
            return 0
        }
    }

    // MARK: link

    /// Says hello until welcomed, syncs, then pings; a missed pong starts over.
    private func maintainLink() async {
        while !Task.isCancelled {
            let target = link.withLock { $0.route.target }
            do {
                try await linkOnce()
            } catch is CancellationError {
                break
            } catch let error as ErrorReply where error.code == .brokerUnavailable || error.code == .helloRequired {
                // Redirected, the partition between owners, a broker that forgot this device (restarted, or moved
                // to while a ping was under way), or one that cannot store now: not a refusal of this device.
                if link.withLock({ $0.lost() }) {
                    logger.warning("the broker cannot serve this link now", metadata: ["error": "\(error)"])
                }
                let moved = link.withLock { $0.route.target } != target
                try? await Task.sleep(for: moved ? .milliseconds(100) : .seconds(1))
            } catch let error as ErrorReply {
                link.withLock { $0.refused(error) }
                logger.error("the broker refused this device", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(2))
            } catch {
                if link.withLock({ $0.lost() }) {
                    logger.warning("lost the broker", metadata: ["error": "\(error)"])
                }
                await moveOnFromUnreachable()
            }
            metrics.setLinked(false)
        }
    }

    /// One link: hello, catch up, then ping until a ping fails (thrown) or the task is cancelled.
    private func linkOnce() async throws {
        let hello = Message.hello(minVersion: Wire.minimumVersion, maxVersion: Wire.highestVersion)
        let reply = try await request(hello, timeout: .seconds(2))
        guard case .welcome(let version, let family, let member, let device, let role, _) = reply else { return }
        link.withLock {
            $0.welcomed(
                DeviceIdentity(familyID: family, memberID: member, deviceID: device, role: role, version: version))
        }
        try? await store.setValue(member, for: "member_id")
        try? await store.setValue(device, for: "device_id")
        try await syncToHead()
        guard link.withLock({ $0.caughtUp() }) else { return }
        metrics.setLinked(true)
        logger.info("linked to the broker", metadata: ["member": "\(member)", "device": "\(device)"])
        await behavior.linked(context: self)
        while !Task.isCancelled && link.withLock({ $0.isLinked }) {
            try await Task.sleep(for: options.pingInterval)
            // A new connection since the welcome: hello again (the broker may have restarted), then sync.
            if link.withLock({ $0.helloWanted }) { return }
            guard case .pong(let head) = try await request(.ping, timeout: .seconds(3)) else { continue }
            if head > (try await store.lastApplied()) { startSync() }
        }
    }

    /// Starts a sync unless one runs; one running will sync again when it ends.
    private func startSync() {
        guard link.withLock({ $0.syncWanted() }) else { return }
        owned.add { [self] in
            repeat {
                try? await syncToHead()
            } while link.withLock { $0.syncEnded() }
        }
    }

    /// Fetches and applies everything after the last applied number, page by page.
    private func syncToHead() async throws {
        while true {
            let after = try await store.lastApplied()
            metrics.synced()
            guard
                case .events(let head, let events) = try await request(
                    .sync(after: after, limit: Wire.maxEventsPerSync))
            else { return }
            if !events.isEmpty {
                let applied = await apply(events)
                // Events pub/sub did not bring (not yet subscribed, dropped at the high-water mark, a reconnect).
                if applied > 0 {
                    logger.info("caught up by sync", metadata: ["events": "\(applied)", "head": "\(head)"])
                }
            }
            let now = try await store.lastApplied()
            if now >= head || events.isEmpty { return }
        }
    }
}
