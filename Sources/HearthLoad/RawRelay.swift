import CZeroMQ
import Foundation
import ZeroMQ

/// The transport's ceiling for the same flow: a minimal stateless relay written directly on libzmq's C API.
///
/// ROUTER in, PUB out, no storage, no decoding, one thread doing blocking `zmq_msg_recv`/`zmq_msg_send` with
/// zero-copy message forwarding. A device sends `[topic][frame]`; the relay echoes `[frame]` to it as the reply and
/// publishes `[topic][frame]`. With CURVE on, both sockets are CURVE servers without a ZAP handler (any key is let
/// in), so each message pays the same encryption as with the broker.
public enum RawRelay {
    /// Binds, writes a ready file in the broker's format, and relays until the process is killed.
    public static func run(ingress: String, egress: String, readyFile: String, curve: Bool) throws -> Never {
        guard let context = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        guard let router = zmq_socket(context, ZMQ_ROUTER), let pub = zmq_socket(context, ZMQ_PUB) else {
            throw ZMQError.last("zmq_socket")
        }
        let keys = try CurveKeyPair.generate()
        for socket in [router, pub] {
            var hwm: Int32 = 10_000
            try check(zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, 4), "ZMQ_SNDHWM")
            try check(zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, 4), "ZMQ_RCVHWM")
            if curve {
                var on: Int32 = 1
                try check(zmq_setsockopt(socket, ZMQ_CURVE_SERVER, &on, 4), "ZMQ_CURVE_SERVER")
                try check(zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, keys.secretKey, 40), "ZMQ_CURVE_SECRETKEY")
            }
        }
        try check(zmq_bind(router, ingress), "zmq_bind(\(ingress))")
        try check(zmq_bind(pub, egress), "zmq_bind(\(egress))")
        let ready: [String: String] = [
            "ingress": try endpoint(router), "egress": try endpoint(pub), "publicKey": keys.publicKey,
        ]
        var json = try JSONSerialization.data(withJSONObject: ready)
        json.removeLast()  // the closing brace: the pid is a number
        json.append(contentsOf: Array(",\"pid\":\(getpid())}".utf8))
        try json.write(to: URL(fileURLWithPath: readyFile), options: .atomic)

        // Heap-allocated: libzmq keeps small messages inline, so their address must not move.
        let parts = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 4)
        for i in 0..<4 { zmq_msg_init(parts + i) }
        while true {
            var count = 0
            var more = true
            while more {
                let part = parts + min(count, 3)
                if count >= 3 {
                    zmq_msg_close(part)
                    zmq_msg_init(part)
                }
                guard zmq_msg_recv(part, router, 0) >= 0 else { continue }
                count += 1
                more = zmq_msg_more(part) != 0
            }
            // parts: 0 routing id, 1 topic, 2 frame; anything else is not a relay request.
            guard count == 3 else { continue }
            let copy = parts + 3
            zmq_msg_copy(copy, parts + 2)
            zmq_msg_send(parts, router, ZMQ_SNDMORE)
            zmq_msg_send(parts + 2, router, ZMQ_DONTWAIT)
            zmq_msg_send(parts + 1, pub, ZMQ_SNDMORE)
            zmq_msg_send(copy, pub, ZMQ_DONTWAIT)
        }
    }

    private static func check(_ rc: Int32, _ what: String) throws {
        if rc != 0 { throw ZMQError.last(what) }
    }

    private static func endpoint(_ socket: UnsafeMutableRawPointer) throws -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        try check(zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, &buffer, &size), "ZMQ_LAST_ENDPOINT")
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
