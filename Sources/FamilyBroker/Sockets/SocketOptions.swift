/// What the broker's sockets take of its options: where they bind and what each subscriber may have queued. The
/// service makes it from `BrokerOptions` (`BrokerOptions.sockets`), so the sockets need nothing of the service.
struct SocketOptions: Sendable {
    /// The CURVE ROUTER's endpoint, for commands.
    var ingress: String
    /// The CURVE XPUB's endpoint, for events.
    var egress: String
    /// The admin socket's file.
    var adminSocket: String
    /// `ZMQ_SNDHWM` of the egress socket: messages queued per subscriber before libzmq drops its events.
    var subscriberHighWaterMark: Int32
}
