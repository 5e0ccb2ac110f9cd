import Foundation
import HearthCore
import HearthProtocol
import HearthService
import HearthTransport
import Logging
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// The family-broker daemon: CURVE-authenticated ingress (ROUTER) and egress (XPUB), a ZAP handler bound before
/// them, and the engine between them.
public final class FamilyBrokerService: Service {
    /// Socket indexes in the I/O loop, in bind order: ZAP first, so no CURVE handshake is ever unauthenticated.
    enum Slot {
        static let zap = 0
        static let ingress = 1
        static let egress = 2
        static let admin = 3
    }

    public let options: BrokerOptions
    private let logger: Logger
    private let clock: @Sendable () -> Date

    private let health: BrokerHealth

    public init(options: BrokerOptions, logger: Logger, clock: @escaping @Sendable () -> Date = Date.init) {
        self.options = options
        self.logger = logger
        self.clock = clock
        self.health = BrokerHealth(heartbeatInterval: options.heartbeatInterval)
    }

    /// Ready once both sockets are bound and the database is open (the `/readyz` probe).
    public var readiness: HealthStatus { health.readiness }

    /// Alive while its heartbeat task runs (the `/healthz` probe).
    public var liveness: HealthStatus { health.liveness }

    public func run() async throws {
        let options = self.options
        try FileManager.default.createDirectory(atPath: options.stateDirectory, withIntermediateDirectories: true)
        // The admin socket lives here: only the broker's user may reach it.
        chmod(options.stateDirectory, 0o700)
        let policy = try Self.loadPolicy(options)
        let keys = try KeyFiles.loadOrGenerate(secretPath: options.secretKeyFile)
        let store = try BrokerStore(path: options.databasePath)
        try store.startBackgroundCheckpoints(logger: logger)
        let sequences = SequenceBook(try store.heads())
        let subscribed = SubscribedMembers()
        let logger = self.logger
        let metrics = BrokerMetrics()
        let health = self.health
        let configuration: @Sendable () throws -> Directory = { try Self.loadDirectory(options, policy: policy) }
        // The family file is applied before any socket opens, so the first handshake already sees it.
        let (directory, startup) = try await Self.startupDirectory(
            store, sequences: sequences, policy: policy, logger: logger, clock: clock, configuration: configuration)
        if !startup.events.isEmpty { logger.info("family file applied", metadata: ["events": "\(startup.events.count)"]) }
        // The file's parse and the import free far more than the directory keeps.
        FreedMemory.release()
        let subscriptionLimiter = RateLimiter(rate: 1, burst: 20)

        let loop = try SocketLoop(name: "broker-io", sockets: [
            .init(.rep, configure: { socket in
                try socket.setLinger(milliseconds: 0)
                try socket.bind("inproc://zeromq.zap.01")
            }, intercept: { message, socket in
                Self.authenticate(message, socket: socket, directory: directory, logger: logger)
                return true
            }),
            .init(.router, configure: { socket in
                try Self.configureIngress(socket, keys: keys, options: options, endpoint: options.ingress)
            }),
            .init(.xpub, configure: { socket in
                try Self.configureEgress(socket, keys: keys, options: options, endpoint: options.egress)
            }, intercept: { message, socket in
                Self.grantSubscription(
                    message, socket: socket, directory: directory, sequences: sequences, subscribed: subscribed, limiter: subscriptionLimiter,
                    logger: logger)
                return true
            }),
            .init(.router, configure: { socket in
                try socket.setLinger(milliseconds: 0)
                try socket.setMaxMessageSize(Int64(Wire.maxFrameSize))
                try? FileManager.default.removeItem(atPath: options.adminSocket)
                try socket.bind("ipc://" + options.adminSocket)
                chmod(options.adminSocket, 0o600)
            }),
        ], configureContext: { context in
            // ~5 KiB less per connection (two per device): what a device sends is small, copying it costs little.
            try context.setZeroCopyReceive(false)
        })
        let engine = BrokerEngine(
            store: store, directory: directory, sequences: sequences, logger: logger, policy: policy, clock: clock,
            deliver: { output in
                Self.deliver(output, loop: loop)
                metrics.record(output)
                Self.logResolutions(output.events, logger: logger)
            })
        try await loop.start()
        let (ingress, egress) = try await loop.query { sockets in
            (try sockets[Slot.ingress].lastEndpoint, try sockets[Slot.egress].lastEndpoint)
        }
        let bound = BoundEndpoints(ingress: ingress, egress: egress, keys: keys, options: options)
        let ready = BrokerReady(ingress: ingress, egress: egress, publicKey: keys.publicKey, pid: getpid())
        try JSONEncoder().encode(ready).write(to: URL(fileURLWithPath: options.readyFile), options: .atomic)
        logger.info("family-broker ready", metadata: [
            "ingress": "\(ingress)", "egress": "\(egress)", "publicKey": "\(keys.publicKey)", "admin": "\(options.adminSocket)",
            "members": "\(directory.current.members.count)", "devices": "\(directory.current.devices.count)",
        ])
        health.markReady(ingress: ingress, egress: egress)

        let heartbeat = Task {
            var reportedDrops: UInt64 = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: options.heartbeatInterval)
                let drops = loop.droppedCount
                if drops > reportedDrops {
                    // Slow subscribers past their high-water mark: they recover by syncing, nothing is lost.
                    logger.notice("dropped messages to slow peers", metadata: ["dropped": "\(drops - reportedDrops)", "total": "\(drops)"])
                }
                metrics.refresh(
                    subscribedMembers: subscribed.all.count, newlyDropped: drops - min(drops, reportedDrops), checkpoints: store.checkpoints.counts)
                reportedDrops = max(drops, reportedDrops)
                health.beat()
                for member in subscribed.all {
                    loop.send([Wire.topic(for: member), MessageCodec.encode(.heartbeat(head: sequences.head(of: member)))], on: Slot.egress)
                }
            }
        }
        let expiry = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: options.expiryInterval)
                do {
                    let output = try await engine.expireQuestions()
                    if !output.events.isEmpty { logger.info("questions expired", metadata: ["events": "\(output.events.count)"]) }
                } catch {
                    logger.error("expiry sweep failed", metadata: ["error": "\(error)"])
                }
                do {
                    try await engine.maintainAgeRanges()
                } catch {
                    logger.error("age range sweep failed", metadata: ["error": "\(error)"])
                }
            }
        }
        let limiter = RateLimiter(rate: options.deviceCommandRate, burst: options.deviceCommandBurst)
        await withGracefulShutdownHandler {
            for await batch in loop.inbound {
                // After SIGTERM only the batch in hand finishes (committed, then answered). What is still queued was
                // never acknowledged: dropping it keeps the shutdown bound under a flood, and its senders retry.
                if health.isStopping { break }
                let admin = batch.filter { $0.socket == Slot.admin }
                await Self.process(batch, engine: engine, loop: loop, limiter: limiter, metrics: metrics)
                for item in admin {
                    await Self.administer(item, engine: engine, loop: loop, bound: bound, configuration: configuration, logger: logger)
                }
            }
        } onGracefulShutdown: {
            // The batch being committed still gets its replies; nothing more is read or started.
            health.markStopping()
            loop.inbound.finish()
        }
        heartbeat.cancel()
        health.markStopped()
        expiry.cancel()
        await loop.stop()
        try? FileManager.default.removeItem(atPath: options.readyFile)
        try? FileManager.default.removeItem(atPath: options.adminSocket)
        let checkpoints = store.checkpoints.counts
        logger.info("family-broker stopped", metadata: [
            "checkpoints": "\(checkpoints.background) in the background (\(checkpoints.busy) skipped), \(checkpoints.writer) by the writer",
        ])
    }

    /// Where the CURVE sockets ended up bound, to bind them again when revoked devices must be cut off.
    struct BoundEndpoints: Sendable {
        var ingress: String
        var egress: String
        var keys: CurveKeyPair
        var options: BrokerOptions
    }

    static func process(_ batch: [SocketLoop.Inbound], engine: BrokerEngine, loop: SocketLoop, limiter: RateLimiter, metrics: BrokerMetrics) async {
        var commands: [BrokerEngine.Command] = []
        commands.reserveCapacity(batch.count)
        let directory = engine.directory.current
        for item in batch where item.socket == Slot.ingress {
            let frames = item.message.frames
            guard let device = item.message.userId, directory.devices[device] != nil else {
                // A key revoked since its connection was made: nothing more goes back to it.
                continue
            }
            switch limiter.admit(device) {
            case .admit:
                break
            case .refuse:
                if let routing = frames.first, frames.count == 2 {
                    let reply = MessageCodec.encode(
                        .error(ErrorReply(.rateLimited, "too many commands from \(device); at most \(Int(limiter.rate))/s")),
                        requestID: MessageCodec.peekRequestID(frames[1]))
                    loop.send([routing, reply], on: Slot.ingress)
                }
                continue
            case .drop:
                continue
            }
            guard frames.count == 2 else {
                if let routing = frames.first, let last = frames.last {
                    let error = WireError.wrongFrameCount(expected: 1, got: frames.count - 1)
                    let reply = MessageCodec.encode(.error(ErrorReply(error.code, error.description)), requestID: MessageCodec.peekRequestID(last))
                    loop.send([routing, reply], on: Slot.ingress)
                }
                continue
            }
            commands.append(.init(routingID: frames[0], deviceID: device, frame: frames[1]))
        }
        guard !commands.isEmpty else { return }
        let started = ContinuousClock.now
        _ = await engine.process(commands)
        metrics.record(commands, duration: ContinuousClock.now - started)
    }

    /// Sends a committed transaction's replies and events; runs on the store's writer queue, in commit order.
    static func deliver(_ output: BrokerEngine.Output, loop: SocketLoop) {
        for reply in output.replies {
            loop.send([reply.routingID, reply.frame], on: Slot.ingress)
        }
        for (event, frame) in zip(output.events, output.eventFrames) {
            loop.send([Wire.topic(for: event.memberID), frame], on: Slot.egress)
        }
    }

    /// One admin command from the local admin socket. A revoked or removed device is cut off by reopening both CURVE
    /// sockets on the same endpoints: every connection drops, and only enrolled keys get back in.
    static func administer(
        _ item: SocketLoop.Inbound, engine: BrokerEngine, loop: SocketLoop, bound: BoundEndpoints,
        configuration: @escaping @Sendable () throws -> Directory, logger: Logger
    ) async {
        let frames = item.message.frames
        guard frames.count == 2, let routing = frames.first else { return }
        let requestID = MessageCodec.peekRequestID(frames[1])
        func reply(_ message: Message) { loop.send([routing, MessageCodec.encode(message, requestID: requestID)], on: Slot.admin) }
        let request: AdminRequest
        do {
            guard case .adminRequest(let json) = try MessageCodec.decode(frames[1]).message else {
                return reply(.error(ErrorReply(.unknownMessageType, "the admin socket takes adminRequest (0x50) only")))
            }
            request = try JSONDecoder().decode(AdminRequest.self, from: Data(json.utf8))
        } catch let error as WireError {
            return reply(.error(ErrorReply(error.code, error.description)))
        } catch {
            return reply(.error(ErrorReply(.invalidRequest, "not an admin request: \(error)")))
        }
        switch await engine.admin(request, configuration: configuration) {
        case .failure(let error):
            reply(.error(error))
        case .success(let result):
            if !result.disconnectedDevices.isEmpty {
                do {
                    try await loop.reopen(Slot.ingress) { socket in
                        try configureIngress(socket, keys: bound.keys, options: bound.options, endpoint: bound.ingress)
                    }
                    try await loop.reopen(Slot.egress) { socket in
                        try configureEgress(socket, keys: bound.keys, options: bound.options, endpoint: bound.egress)
                    }
                    logger.notice("closed every connection to cut off devices", metadata: ["devices": "\(result.disconnectedDevices)"])
                } catch {
                    logger.critical("could not reopen the broker's sockets after a revocation", metadata: ["error": "\(error)"])
                }
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            reply(.adminResult(String(decoding: (try? encoder.encode(result)) ?? Data("{}".utf8), as: UTF8.self)))
        }
    }

    static func configureIngress(_ socket: ZMQSocket, keys: CurveKeyPair, options: BrokerOptions, endpoint: String) throws {
        try secure(socket, keys: keys, options: options)
        try socket.setSendHighWaterMark(10_000)
        try socket.setReceiveHighWaterMark(10_000)
        try socket.bind(endpoint)
    }

    static func configureEgress(_ socket: ZMQSocket, keys: CurveKeyPair, options: BrokerOptions, endpoint: String) throws {
        try secure(socket, keys: keys, options: options)
        try socket.setSendHighWaterMark(options.subscriberHighWaterMark)
        try socket.setXPubManual(true)
        try socket.bind(endpoint)
    }

    static func secure(_ socket: ZMQSocket, keys: CurveKeyPair, options: BrokerOptions) throws {
        try socket.setLinger(milliseconds: 500)
        try socket.setZAPDomain("hearth")
        try socket.makeCurveServer(secretKey: keys.secretKey)
        // libzmq counts CURVE's per-frame overhead against the limit: a 1 MiB frame must pass as it does over ipc.
        try socket.setMaxMessageSize(Int64(Wire.maxCurveMessageSize))
        try socket.setHandshakeInterval(milliseconds: 5000)
        // No ZMTP heartbeats here: libzmq 4.3 keeps every connection's heartbeat timers in one ordered map per I/O
        // thread and cancels a timer (on every message after a PING) by scanning that map, so with ~10,000 devices the
        // broker's I/O thread spent itself scanning and handshakes stalled. Dead peers are found by TCP keepalive
        // (in the kernel) instead: after 10 s of silence, 2 unanswered probes 5 s apart.
        try socket.setTCPKeepalive(idleSeconds: 10, intervalSeconds: 5, count: 2)
        // Devices reconnecting together (after a broker restart) overflowed libzmq's default queue of 100 pending
        // connections; each refused SYN costs its device a TCP retransmission timeout (1 s, then 3 s, 7 s...).
        try socket.setBacklog(4096)
    }

    /// ZAP (RFC 27): a key is let in only if it is enrolled; its device id becomes the connection's `User-Id`.
    static func authenticate(_ message: ZMQMessage, socket: ZMQSocket, directory: DirectoryBox, logger: Logger) {
        guard let request = try? ZAPRequest(frames: message.frames) else {
            // libzmq always sends well-formed requests; a REP socket must still answer to stay usable.
            _ = try? socket.send([Array("1.0".utf8), [], Array("400".utf8), Array("malformed".utf8), [], []])
            return
        }
        let device = request.mechanism == "CURVE" ? request.curvePublicKeyZ85.flatMap { directory.current.deviceByKey[$0] } : nil
        if device == nil {
            logger.notice("refused an unknown key", metadata: ["address": "\(request.address)", "mechanism": "\(request.mechanism)"])
        }
        _ = try? socket.send(request.reply(allowed: device != nil, userId: device ?? "", statusText: device == nil ? "key not enrolled" : "OK"))
    }

    /// XPUB_MANUAL: whatever a device asks to subscribe to, its pipe gets exactly its own member's topic.
    static func grantSubscription(
        _ message: ZMQMessage, socket: ZMQSocket, directory: DirectoryBox, sequences: SequenceBook, subscribed: SubscribedMembers,
        limiter: RateLimiter, logger: Logger
    ) {
        guard let frame = message.frames.first, frame.first == 1,
              let device = message.userId, let member = directory.current.member(ofDevice: device)
        else { return }
        // Each grant is one topic whatever was asked; a peer re-subscribing in a loop is ignored past its allowance.
        guard limiter.admit(device) == .admit else {
            logger.debug("subscription flood ignored", metadata: ["device": "\(device)"])
            return
        }
        let topic = Wire.topic(for: member.id)
        // Must directly follow the receive: ZMQ_SUBSCRIBE applies to the pipe the last subscription came from.
        try? socket.subscribe(topic)
        subscribed.insert(member.id)
        // Greets the new subscriber with its head, so it knows at once whether it is behind.
        _ = try? socket.send([topic, MessageCodec.encode(.heartbeat(head: sequences.head(of: member.id)))], dontWait: true)
    }

    static func loadPolicy(_ options: BrokerOptions) throws -> BrokerPolicy {
        var policy = BrokerPolicy()
        if let path = options.regionsFile { policy.regions = try RegionFile.load(path: path) }
        if let path = options.childDefaultsFile { policy.childDefaults = try ChildDefaults.load(path: path) }
        policy.maxFamilyMembers = options.maxFamilyMembers
        policy.agePromptTimeout = options.agePromptTimeout
        if let askLimit = options.askLimit { policy.childDefaults.askLimit = askLimit }
        return policy
    }

    /// The directory as the broker stored it (empty on first start).
    static func storedDirectory(_ store: BrokerStore, policy: BrokerPolicy) async throws -> Directory {
        guard let file = try await store.read({ db in try BrokerStore.storedFile(in: db) }) else { return Directory(rules: policy.regions) }
        return try Directory(
            file: file, keysDirectory: "/", source: "the broker database", rules: policy.regions, maxFamilyMembers: Int.max)
    }

    static func loadDirectory(_ options: BrokerOptions, policy: BrokerPolicy) throws -> Directory {
        let file = try FamilyFile.load(path: options.familyFile)
        let keys = options.keysDirectory ?? (options.familyFile as NSString).deletingLastPathComponent
        return try Directory(
            file: file, keysDirectory: keys.isEmpty ? "." : keys, source: options.familyFile, rules: policy.regions,
            maxFamilyMembers: policy.maxFamilyMembers)
    }
}
