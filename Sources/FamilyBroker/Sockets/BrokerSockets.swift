import BrokerCore
import Foundation
import HearthCore
import HearthProtocol
import HearthTransport
import Logging
import ZeroMQ

/// The broker's sockets on one I/O loop, in bind order: the ZAP handler first (so no CURVE handshake is ever
/// unauthenticated), the CURVE ingress (ROUTER) and egress (XPUB), and the local admin socket. Their options live
/// here; what they let in is the `Gate`'s decision.
struct BrokerSockets: Sendable {
    /// Socket indexes in the I/O loop.
    enum Slot {
        static let zap = 0
        static let ingress = 1
        static let egress = 2
        static let admin = 3
    }

    let loop: SocketLoop
    /// Where the CURVE sockets ended up bound, to bind them again when revoked devices must be cut off.
    let ingress: String
    let egress: String
    let keys: CurveKeyPair
    let options: SocketOptions

    /// Binds every socket and starts the loop.
    static func open(
        options: SocketOptions, keys: CurveKeyPair, gate: Gate, sequences: SequenceBook, subscribed: SubscribedMembers,
        hostile: HostilePeers, logger: Logger
    ) async throws -> BrokerSockets {
        let loop = try SocketLoop(
            name: "broker-io",
            sockets: [
                .init(
                    .rep,
                    configure: { socket in
                        try socket.setLinger(milliseconds: 0)
                        try socket.bind("inproc://zeromq.zap.01")
                    },
                    intercept: { message, socket in
                        _ = try? socket.send(gate.zapReply(message.frames, logger: logger))
                        return true
                    }),
                // The routing id and the command frames the gate still answers; more are freed unread.
                .init(
                    .router, maxFrames: 1 + Gate.maxCommandFrames,
                    configure: { socket in
                        try configureIngress(socket, keys: keys, options: options, endpoint: options.ingress)
                    }),
                .init(
                    .xpub, maxFrames: 1,
                    configure: { socket in
                        try configureEgress(socket, keys: keys, options: options, endpoint: options.egress)
                    },
                    intercept: { message, socket in
                        grant(
                            message, socket: socket, gate: gate, sequences: sequences, subscribed: subscribed,
                            hostile: hostile, logger: logger)
                        return true
                    }),
                .init(.router, configure: { socket in try configureAdmin(socket, path: options.adminSocket) }),
            ],
            configureContext: { context in
                // ~5 KiB less per connection (two per device): what a device sends is small, copying it costs little.
                try context.setZeroCopyReceive(false)
            })
        try await loop.start()
        let (ingress, egress) = try await loop.query { sockets in
            (try sockets[Slot.ingress].lastEndpoint, try sockets[Slot.egress].lastEndpoint)
        }
        return BrokerSockets(loop: loop, ingress: ingress, egress: egress, keys: keys, options: options)
    }

    /// Sends a reply on the socket a command came from.
    func reply(_ frame: [UInt8], to routingID: [UInt8], on slot: Int = Slot.ingress) {
        loop.send([routingID, frame], on: slot)
    }

    /// Sends a batch's replies to the ingress socket in one hand-off to the loop (see `replyMessages`).
    func reply(_ replies: [CommandIntake.Reply]) {
        loop.send(Self.replyMessages(replies))
    }

    /// Publishes each frame on its member's topic, in order, in one hand-off to the loop.
    func publish(_ publications: [BrokerFrames.Publication]) {
        loop.send(publications.map { .init([BrokerFrames.topic(of: $0.member), $0.frame], on: Slot.egress) })
    }

    /// The replies as messages for the ingress socket: each routing id's together, in their order, the routing ids in
    /// the order of their first reply. libzmq's I/O thread writes whatever a connection has queued in one TCP send (up
    /// to 8 KiB): a device's replies queued back to back mostly leave together, where with other devices' replies
    /// between them the first has often been written alone before the next is queued.
    static func replyMessages(_ replies: [CommandIntake.Reply]) -> [SocketLoop.Outgoing] {
        var slot: [[UInt8]: Int] = [:]
        var groups: [[Int]] = []
        slot.reserveCapacity(replies.count)
        for index in replies.indices {
            if let at = slot[replies[index].routingID] {
                groups[at].append(index)
            } else {
                slot[replies[index].routingID] = groups.count
                groups.append([index])
            }
        }
        var messages: [SocketLoop.Outgoing] = []
        messages.reserveCapacity(replies.count)
        for group in groups {
            for index in group {
                messages.append(.init([replies[index].routingID, replies[index].frame], on: Slot.ingress))
            }
        }
        return messages
    }

    /// Closes every CURVE connection by reopening both sockets on the same endpoints: only enrolled keys get back in.
    func reopenCURVE() async throws {
        let keys = self.keys
        let options = self.options
        let ingress = self.ingress
        let egress = self.egress
        try await loop.reopen(Slot.ingress) { socket in
            try Self.configureIngress(socket, keys: keys, options: options, endpoint: ingress)
        }
        try await loop.reopen(Slot.egress) { socket in
            try Self.configureEgress(socket, keys: keys, options: options, endpoint: egress)
        }
    }

    /// Carries out the gate's decision on a subscription message. Must run right after its receive, with no other call
    /// on the socket between: ZMQ_SUBSCRIBE applies to the pipe the last subscription came from.
    private static func grant(
        _ message: ZMQMessage, socket: ZMQSocket, gate: Gate, sequences: SequenceBook, subscribed: SubscribedMembers,
        hostile: HostilePeers, logger: Logger
    ) {
        let member: MemberID
        let frame = message.frames.first ?? []
        switch gate.grant(frame, extraFrames: message.discardedFrames, device: message.userId) {
        case .topic(let granted):
            member = granted
        case .nothing:
            return
        case .flood:
            logger.debug("subscription flood ignored", metadata: ["device": "\(message.userId ?? "-")"])
            return
        case .hostile(let reason):
            // Nothing is subscribed: libzmq keeps no prefix for the pipe unless told (XPUB_MANUAL).
            HostilePeers.drop(message, from: socket)
            if let device = message.userId { hostile.cutOff(device, reason: reason, onEvents: true) }
            return
        case .cutOff:
            HostilePeers.drop(message, from: socket)
            return
        }
        let topic = BrokerFrames.topic(of: member)
        try? socket.subscribe(topic)
        subscribed.insert(member)
        // Greets the new subscriber with its head, so it knows at once whether it is behind.
        _ = try? socket.send([topic, BrokerFrames.heartbeat(head: sequences.head(of: member))], dontWait: true)
    }

    /// `ZMQ_RCVHWM` of the ingress socket, in messages per connection.
    static let ingressReceiveHighWaterMark: Int32 = 100
    /// `ZMQ_RCVHWM` of the egress socket, in messages per connection.
    static let egressReceiveHighWaterMark: Int32 = 4
    /// `ZMQ_MAXMSGSIZE` of the egress socket: far above any subscription (`Gate.longestSubscription`), so that a
    /// long one reaches the gate and cuts its sender off; a longer frame makes libzmq drop the connection unread.
    static let egressMaxMessageSize: Int64 = 128 * 1024

    static func configureIngress(
        _ socket: ZMQSocket, keys: CurveKeyPair, options: SocketOptions, endpoint: String
    ) throws {
        try secure(socket, keys: keys)
        try socket.setSendHighWaterMark(10_000)
        // Whole messages queued per connection before libzmq stops reading it, each of at most a frame's size (the
        // gate answers or cuts off a message of several): what one device can make the broker hold while behind.
        // The broker reads far faster than a device may send commands (`--device-rate`).
        try socket.setReceiveHighWaterMark(ingressReceiveHighWaterMark)
        try socket.bind(endpoint)
    }

    static func configureEgress(
        _ socket: ZMQSocket, keys: CurveKeyPair, options: SocketOptions, endpoint: String
    ) throws {
        try secure(socket, keys: keys)
        try socket.setSendHighWaterMark(options.subscriberHighWaterMark)
        // A device sends one subscription per connection (and again after a reconnect). libzmq moves what is queued
        // into its own list as soon as the socket is polled, keeping every prefix until the connection ends: a few
        // queued at most, each at most `egressMaxMessageSize`, bound what a hostile one holds before it is cut off.
        try socket.setReceiveHighWaterMark(egressReceiveHighWaterMark)
        try socket.setMaxMessageSize(egressMaxMessageSize)
        try socket.setXPubManual(true)
        try socket.bind(endpoint)
    }

    /// The admin socket: an ipc file only the broker's user may reach (its directory is 0700, the file 0600).
    static func configureAdmin(_ socket: ZMQSocket, path: String) throws {
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(Int64(Wire.maxFrameSize))
        try? FileManager.default.removeItem(atPath: path)
        try socket.bind("ipc://" + path)
        chmod(path, 0o600)
    }

    static func secure(_ socket: ZMQSocket, keys: CurveKeyPair) throws {
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
}
