import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import Synchronization
import ZeroMQ

/// A hand-made CURVE client of the broker (DEALER + SUB subscribed to everything), for probing what a device with
/// a given key can do and see.
final class RawPeer: Sendable {
    let loop: SocketLoop
    private let received = Mutex<[(socket: Int, frames: [[UInt8]])]>([])
    private let reader: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(ingress: String, egress: String, brokerKey: String, keys: CurveKeyPair) async throws {
        @Sendable func secure(_ socket: ZMQSocket) throws {
            try socket.setLinger(milliseconds: 0)
            try socket.makeCurveClient(serverPublicKey: brokerKey, keys: keys)
        }
        loop = try SocketLoop(
            name: "raw-peer",
            sockets: [
                .init(.dealer) { socket in
                    try secure(socket)
                    try socket.connect(ingress)
                },
                .init(.sub) { socket in
                    try secure(socket)
                    try socket.subscribe([])
                    try socket.connect(egress)
                },
            ])
        try await loop.start()
        let inbound = loop.inbound
        let box = Collected()
        collected = box
        reader.withLock {
            $0 = Task {
                for await batch in inbound {
                    box.items.withLock { $0.append(contentsOf: batch.map { ($0.socket, $0.message.frames) }) }
                }
            }
        }
    }

    private final class Collected: Sendable {
        let items = Mutex<[(socket: Int, frames: [[UInt8]])]>([])
    }

    private let collected: Collected

    /// Everything received so far on the DEALER (0) or the SUB (1), decoded.
    func messages(on socket: Int) -> [Message] {
        collected.items.withLock { $0 }.filter { $0.socket == socket }.compactMap { item in
            item.frames.last.flatMap { try? MessageCodec.decode($0).message }
        }
    }

    /// Topics of everything received on the SUB.
    var topics: [[UInt8]] {
        collected.items.withLock { $0 }.filter { $0.socket == 1 }.compactMap(\.frames.first)
    }

    func send(_ message: Message, requestID: UInt64 = 1) {
        loop.send([MessageCodec.encode(message, requestID: requestID)], on: 0)
    }

    /// Sends raw frames on the DEALER as one multipart message, however malformed.
    func send(frames: [[UInt8]]) {
        loop.send(frames, on: 0)
    }

    /// Sends `message` and waits for the DEALER's reply with `requestID`; other replies taken meanwhile are dropped.
    /// The default is a hang detector, not a latency bound: a full parallel run here delayed answers past 5 s. A call
    /// that expects no answer passes a short `timeout` of its own.
    func request(_ message: Message, requestID: UInt64, timeout: Duration = .seconds(30)) async throws -> Message {
        send(message, requestID: requestID)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for frames in take(on: 0) {
                if let last = frames.last, let envelope = try? MessageCodec.decode(last),
                    envelope.requestID == requestID
                {
                    return envelope.message
                }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TransportError.timeout(peer: "family-broker", seconds: Double(timeout.components.seconds))
    }

    /// Removes and returns everything the DEALER (0) or the SUB (1) received so far, as raw frames.
    func take(on socket: Int) -> [[[UInt8]]] {
        collected.items.withLock { items in
            let taken = items.filter { $0.socket == socket }.map(\.frames)
            items.removeAll { $0.socket == socket }
            return taken
        }
    }

    func close() async {
        await loop.stop()
        reader.withLock { $0?.cancel() }
    }

    /// A peer holding the key of `device` of `fleet`; the device's own daemon stays connected beside it.
    static func device(_ device: DeviceID, of fleet: Fleet) async throws -> RawPeer {
        let broker = try readyFile(fleet.readyFile)
        let keys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/\(device).key")
        return try await RawPeer(ingress: broker.ingress, egress: broker.egress, brokerKey: broker.key, keys: keys)
    }

    static func readyFile(_ path: String) throws -> (ingress: String, egress: String, key: String) {
        struct Ready: Decodable {
            var ingress: String
            var egress: String
            var publicKey: String
        }
        let ready = try JSONDecoder().decode(Ready.self, from: try Data(contentsOf: URL(fileURLWithPath: path)))
        return (ready.ingress, ready.egress, ready.publicKey)
    }
}
