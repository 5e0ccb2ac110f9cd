import CZeroMQ

/// A ZAP (RFC 27) authentication request, as received on a REP socket bound at `inproc://zeromq.zap.01`.
public struct ZAPRequest: Sendable, Equatable {
    /// The ZAP version; libzmq sends `"1.0"`.
    public let version: String
    /// Opaque id to echo back in the reply.
    public let requestId: [UInt8]
    /// The server socket's `ZMQ_ZAP_DOMAIN`.
    public let domain: String
    /// The peer's address, e.g. `"127.0.0.1"`.
    public let address: String
    /// The peer's routing id (`ZMQ_ROUTING_ID`), possibly empty.
    public let routingId: [UInt8]
    /// `"NULL"`, `"PLAIN"` or `"CURVE"`.
    public let mechanism: String
    /// Mechanism-specific credentials; for CURVE one 32-byte client public key.
    public let credentials: [[UInt8]]

    /// Parses the request frames; throws `EPROTO` if there are fewer than 6.
    public init(frames: [[UInt8]]) throws {
        guard frames.count >= 6 else {
            throw ZMQError(code: EPROTO, operation: "ZAPRequest(\(frames.count) frames)")
        }
        version = String(decoding: frames[0], as: UTF8.self)
        requestId = frames[1]
        domain = String(decoding: frames[2], as: UTF8.self)
        address = String(decoding: frames[3], as: UTF8.self)
        routingId = frames[4]
        mechanism = String(decoding: frames[5], as: UTF8.self)
        credentials = Array(frames[6...])
    }

    /// Z85 of credentials[0] when mechanism == "CURVE" and it is 32 bytes; otherwise nil.
    public var curvePublicKeyZ85: String? {
        guard mechanism == "CURVE", let key = credentials.first, key.count == 32 else { return nil }
        return try? Z85.encode(key)
    }

    /// The reply frames: version "1.0", request id, status code ("200" or "400"), status text, user id, metadata (empty).
    public func reply(allowed: Bool, userId: String, statusText: String) -> [[UInt8]] {
        [
            Array("1.0".utf8),
            requestId,
            Array((allowed ? "200" : "400").utf8),
            Array(statusText.utf8),
            Array(userId.utf8),
            [],
        ]
    }
}
