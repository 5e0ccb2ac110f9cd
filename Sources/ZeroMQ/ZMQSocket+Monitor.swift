import CZeroMQ

extension ZMQSocket {
    /// Publishes this socket's `events` (a mask of `ZMQMonitorEvent` codes) on a PAIR bound at the inproc `endpoint`
    /// (`zmq_socket_monitor`); connect a PAIR socket of the same context there to read them.
    public func monitor(_ endpoint: String, events: Int32) throws {
        let operation = "zmq_socket_monitor(\(endpoint))"
        try check(zmq_socket_monitor(try liveHandle(operation), endpoint, events), operation)
    }
}

/// One event read from a monitor PAIR socket: the event code, its value and the peer endpoint.
public struct ZMQMonitorEvent: Sendable, Equatable {
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_AUTH`: the peer's ZAP handler refused us; `value` is its status code (e.g. 400).
    public static let handshakeFailedAuth = Int32(ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
    /// `ZMQ_EVENT_HANDSHAKE_SUCCEEDED`.
    public static let handshakeSucceeded = Int32(ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
    /// `ZMQ_EVENT_DISCONNECTED`: the connection ended (the peer closed it, or dropped it).
    public static let disconnected = Int32(ZMQ_EVENT_DISCONNECTED)

    public var event: Int32
    public var value: UInt32
    public var endpoint: String

    /// Parses libzmq's two frames: a u16 event and a u32 value in host byte order, then the endpoint.
    public init?(frames: [[UInt8]]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let (event, value) = frames[0].withUnsafeBytes { raw in
            (raw.loadUnaligned(as: UInt16.self), raw.loadUnaligned(fromByteOffset: 2, as: UInt32.self))
        }
        self.event = Int32(event)
        self.value = value
        endpoint = String(decoding: frames[1], as: UTF8.self)
    }
}
