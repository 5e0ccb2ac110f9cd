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
        let directory = DirectoryBox(try Self.loadDirectory(options))
        let keys = try KeyFiles.loadOrGenerate(secretPath: options.secretKeyFile)
        let store = try BrokerStore(path: options.databasePath)
        let sequences = SequenceBook(try store.heads())
        let subscribed = SubscribedMembers()
        let logger = self.logger
        let metrics = BrokerMetrics()
        let health = self.health

        let loop = try SocketLoop(name: "broker-io", sockets: [
            .init(.rep, configure: { socket in
                try socket.setLinger(milliseconds: 0)
                try socket.bind("inproc://zeromq.zap.01")
            }, intercept: { message, socket in
                Self.authenticate(message, socket: socket, directory: directory, logger: logger)
                return true
            }),
            .init(.router, configure: { socket in
                try Self.secure(socket, keys: keys, options: options)
                try socket.setSendHighWaterMark(10_000)
                try socket.setReceiveHighWaterMark(10_000)
                try socket.bind(options.ingress)
            }),
            .init(.xpub, configure: { socket in
                try Self.secure(socket, keys: keys, options: options)
                try socket.setSendHighWaterMark(options.subscriberHighWaterMark)
                try socket.setXPubManual(true)
                try socket.bind(options.egress)
            }, intercept: { message, socket in
                Self.grantSubscription(message, socket: socket, directory: directory, sequences: sequences, subscribed: subscribed)
                return true
            }),
        ])
        try await loop.start()
        let (ingress, egress) = try await loop.query { sockets in
            (try sockets[Slot.ingress].lastEndpoint, try sockets[Slot.egress].lastEndpoint)
        }
        let ready = BrokerReady(ingress: ingress, egress: egress, publicKey: keys.publicKey, pid: getpid())
        try JSONEncoder().encode(ready).write(to: URL(fileURLWithPath: options.readyFile), options: .atomic)
        logger.info("family-broker ready", metadata: [
            "ingress": "\(ingress)", "egress": "\(egress)", "publicKey": "\(keys.publicKey)",
            "members": "\(directory.current.members.count)", "devices": "\(directory.current.devices.count)",
        ])
        health.markReady(ingress: ingress, egress: egress)

        let engine = BrokerEngine(store: store, directory: directory, sequences: sequences, logger: logger, clock: clock)
        let heartbeat = Task {
            var reportedDrops: UInt64 = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: options.heartbeatInterval)
                let drops = loop.droppedCount
                if drops > reportedDrops {
                    // Slow subscribers past their high-water mark: they recover by syncing, nothing is lost.
                    logger.notice("dropped messages to slow peers", metadata: ["dropped": "\(drops - reportedDrops)", "total": "\(drops)"])
                }
                metrics.refresh(subscribedMembers: subscribed.all.count, newlyDropped: drops - min(drops, reportedDrops))
                reportedDrops = max(drops, reportedDrops)
                health.beat()
                for member in subscribed.all {
                    loop.send([Wire.topic(for: member), MessageCodec.encode(.heartbeat(head: sequences.head(of: member)))], on: Slot.egress)
                }
            }
        }
        await withGracefulShutdownHandler {
            for await batch in loop.inbound {
                await Self.process(batch, engine: engine, loop: loop, metrics: metrics, logger: logger)
            }
        } onGracefulShutdown: {
            // Commands already read still get their commit and reply; nothing more is read.
            loop.inbound.finish()
        }
        heartbeat.cancel()
        health.markStopped()
        await loop.stop()
        try? FileManager.default.removeItem(atPath: options.readyFile)
        logger.info("family-broker stopped")
    }

    static func process(_ batch: [SocketLoop.Inbound], engine: BrokerEngine, loop: SocketLoop, metrics: BrokerMetrics, logger: Logger) async {
        var commands: [BrokerEngine.Command] = []
        commands.reserveCapacity(batch.count)
        for item in batch where item.socket == Slot.ingress {
            let frames = item.message.frames
            guard frames.count == 2 else {
                if let routing = frames.first, let last = frames.last {
                    let error = WireError.wrongFrameCount(expected: 1, got: frames.count - 1)
                    let reply = MessageCodec.encode(.error(ErrorReply(error.code, error.description)), requestID: MessageCodec.peekRequestID(last))
                    loop.send([routing, reply], on: Slot.ingress)
                }
                continue
            }
            commands.append(.init(routingID: frames[0], deviceID: item.message.userId, frame: frames[1]))
        }
        guard !commands.isEmpty else { return }
        let started = ContinuousClock.now
        let output = await engine.process(commands)
        metrics.record(commands, output, duration: ContinuousClock.now - started)
        logResolutions(output.events, logger: logger)
        for reply in output.replies {
            loop.send([reply.routingID, reply.frame], on: Slot.ingress)
        }
        for event in output.events {
            loop.send([Wire.topic(for: event.memberID), MessageCodec.encode(.event(event))], on: Slot.egress)
        }
    }

    static func secure(_ socket: ZMQSocket, keys: CurveKeyPair, options: BrokerOptions) throws {
        try socket.setLinger(milliseconds: 500)
        try socket.setZAPDomain("hearth")
        try socket.makeCurveServer(secretKey: keys.secretKey)
        try socket.setMaxMessageSize(Int64(Wire.maxFrameSize))
        try socket.setHandshakeInterval(milliseconds: 5000)
        try socket.setHeartbeat(intervalMilliseconds: 5000, timeoutMilliseconds: 15000, ttlMilliseconds: 15000)
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
        _ message: ZMQMessage, socket: ZMQSocket, directory: DirectoryBox, sequences: SequenceBook, subscribed: SubscribedMembers
    ) {
        guard let frame = message.frames.first, frame.first == 1,
              let device = message.userId, let member = directory.current.member(ofDevice: device)
        else { return }
        let topic = Wire.topic(for: member.id)
        // Must directly follow the receive: ZMQ_SUBSCRIBE applies to the pipe the last subscription came from.
        try? socket.subscribe(topic)
        subscribed.insert(member.id)
        // Greets the new subscriber with its head, so it knows at once whether it is behind.
        _ = try? socket.send([topic, MessageCodec.encode(.heartbeat(head: sequences.head(of: member.id)))], dontWait: true)
    }

    static func loadDirectory(_ options: BrokerOptions) throws -> Directory {
        let file = try FamilyFile.load(path: options.familyFile)
        let keys = options.keysDirectory ?? (options.familyFile as NSString).deletingLastPathComponent
        return try Directory(file: file, keysDirectory: keys.isEmpty ? "." : keys, source: options.familyFile)
    }
}
