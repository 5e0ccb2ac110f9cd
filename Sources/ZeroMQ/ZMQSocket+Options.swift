import CZeroMQ

extension ZMQSocket {
    /// How long `close()` keeps unsent messages (`ZMQ_LINGER`); 0 drops them, -1 waits forever.
    public func setLinger(milliseconds: Int32) throws {
        try setOption(ZMQ_LINGER, "ZMQ_LINGER", int32: milliseconds)
    }

    /// Outbound queue limit in messages (`ZMQ_SNDHWM`); 0 means unlimited.
    public func setSendHighWaterMark(_ n: Int32) throws {
        try setOption(ZMQ_SNDHWM, "ZMQ_SNDHWM", int32: n)
    }

    /// Inbound queue limit in messages (`ZMQ_RCVHWM`); 0 means unlimited.
    public func setReceiveHighWaterMark(_ n: Int32) throws {
        try setOption(ZMQ_RCVHWM, "ZMQ_RCVHWM", int32: n)
    }

    /// Largest accepted inbound message in bytes (`ZMQ_MAXMSGSIZE`); peers sending more are disconnected. -1 means no limit.
    public func setMaxMessageSize(_ bytes: Int64) throws {
        try setOption(ZMQ_MAXMSGSIZE, "ZMQ_MAXMSGSIZE", int64: bytes)
    }

    /// Maximum time for a connection's security handshake (`ZMQ_HANDSHAKE_IVL`); 0 disables the limit.
    public func setHandshakeInterval(milliseconds: Int32) throws {
        try setOption(ZMQ_HANDSHAKE_IVL, "ZMQ_HANDSHAKE_IVL", int32: milliseconds)
    }

    /// ZMTP heartbeats: ping interval (`ZMQ_HEARTBEAT_IVL`), timeout before dropping the peer (`ZMQ_HEARTBEAT_TIMEOUT`), and the TTL advertised to the peer (`ZMQ_HEARTBEAT_TTL`).
    public func setHeartbeat(intervalMilliseconds: Int32, timeoutMilliseconds: Int32, ttlMilliseconds: Int32) throws {
        try setOption(ZMQ_HEARTBEAT_IVL, "ZMQ_HEARTBEAT_IVL", int32: intervalMilliseconds)
        try setOption(ZMQ_HEARTBEAT_TIMEOUT, "ZMQ_HEARTBEAT_TIMEOUT", int32: timeoutMilliseconds)
        try setOption(ZMQ_HEARTBEAT_TTL, "ZMQ_HEARTBEAT_TTL", int32: ttlMilliseconds)
    }

    /// TCP keepalive probes (`ZMQ_TCP_KEEPALIVE`, `_IDLE`, `_INTVL`, `_CNT`): a peer that stops answering them is
    /// dropped by the kernel after `idleSeconds + count × intervalSeconds`, with no timer in libzmq's I/O thread.
    public func setTCPKeepalive(idleSeconds: Int32, intervalSeconds: Int32, count: Int32) throws {
        try setOption(ZMQ_TCP_KEEPALIVE, "ZMQ_TCP_KEEPALIVE", int32: 1)
        try setOption(ZMQ_TCP_KEEPALIVE_IDLE, "ZMQ_TCP_KEEPALIVE_IDLE", int32: idleSeconds)
        try setOption(ZMQ_TCP_KEEPALIVE_INTVL, "ZMQ_TCP_KEEPALIVE_INTVL", int32: intervalSeconds)
        try setOption(ZMQ_TCP_KEEPALIVE_CNT, "ZMQ_TCP_KEEPALIVE_CNT", int32: count)
    }

    /// Pending connections the kernel queues for a listening socket (`ZMQ_BACKLOG`, default 100).
    public func setBacklog(_ connections: Int32) throws {
        try setOption(ZMQ_BACKLOG, "ZMQ_BACKLOG", int32: connections)
    }

    /// Initial reconnect delay (`ZMQ_RECONNECT_IVL`) and the exponential-backoff ceiling (`ZMQ_RECONNECT_IVL_MAX`; 0 disables backoff).
    public func setReconnectInterval(milliseconds: Int32, max: Int32) throws {
        try setOption(ZMQ_RECONNECT_IVL, "ZMQ_RECONNECT_IVL", int32: milliseconds)
        try setOption(ZMQ_RECONNECT_IVL_MAX, "ZMQ_RECONNECT_IVL_MAX", int32: max)
    }

    /// Queue messages only to completed connections (`ZMQ_IMMEDIATE`).
    public func setImmediate(_ on: Bool) throws {
        try setOption(ZMQ_IMMEDIATE, "ZMQ_IMMEDIATE", int32: on ? 1 : 0)
    }

    /// Make ROUTER sends to unknown routing ids fail with `EHOSTUNREACH` instead of dropping (`ZMQ_ROUTER_MANDATORY`).
    public func setRouterMandatory(_ on: Bool) throws {
        try setOption(ZMQ_ROUTER_MANDATORY, "ZMQ_ROUTER_MANDATORY", int32: on ? 1 : 0)
    }

    /// The routing id announced to ROUTER peers (`ZMQ_ROUTING_ID`, 1–255 bytes); set before connecting.
    public func setRoutingId(_ id: [UInt8]) throws {
        try setOption(ZMQ_ROUTING_ID, "ZMQ_ROUTING_ID", bytes: id)
    }

    /// XPUB passes subscriptions up without applying them; the owner applies them with `subscribe` (`ZMQ_XPUB_MANUAL`).
    public func setXPubManual(_ on: Bool) throws {
        try setOption(ZMQ_XPUB_MANUAL, "ZMQ_XPUB_MANUAL", int32: on ? 1 : 0)
    }

    /// XPUB passes up every subscribe and unsubscribe message, including duplicates (`ZMQ_XPUB_VERBOSER`).
    public func setXPubVerboser(_ on: Bool) throws {
        try setOption(ZMQ_XPUB_VERBOSER, "ZMQ_XPUB_VERBOSER", int32: on ? 1 : 0)
    }

    /// Adds a topic prefix (`ZMQ_SUBSCRIBE`): on SUB, or on a manual XPUB for the peer of the last received subscription.
    public func subscribe(_ prefix: [UInt8]) throws {
        try setOption(ZMQ_SUBSCRIBE, "ZMQ_SUBSCRIBE", bytes: prefix)
    }

    /// Removes a topic prefix (`ZMQ_UNSUBSCRIBE`), mirroring `subscribe`.
    public func unsubscribe(_ prefix: [UInt8]) throws {
        try setOption(ZMQ_UNSUBSCRIBE, "ZMQ_UNSUBSCRIBE", bytes: prefix)
    }

    /// The ZAP domain sent to the `inproc://zeromq.zap.01` handler (`ZMQ_ZAP_DOMAIN`); set before binding.
    public func setZAPDomain(_ domain: String) throws {
        try setOption(ZMQ_ZAP_DOMAIN, "ZMQ_ZAP_DOMAIN", bytes: Array(domain.utf8))
    }

    /// Makes this a CURVE server (`ZMQ_CURVE_SERVER` = 1, `ZMQ_CURVE_SECRETKEY`); throws `EINVAL` unless the key is 40-char Z85. Set before binding.
    public func makeCurveServer(secretKey: String) throws {
        try requireKey(secretKey, "ZMQ_CURVE_SECRETKEY")
        try setOption(ZMQ_CURVE_SERVER, "ZMQ_CURVE_SERVER", int32: 1)
        try setOption(ZMQ_CURVE_SECRETKEY, "ZMQ_CURVE_SECRETKEY", bytes: Array(secretKey.utf8))
    }

    /// Makes this a CURVE client of the server with `serverPublicKey` (`ZMQ_CURVE_SERVERKEY`, `ZMQ_CURVE_PUBLICKEY`, `ZMQ_CURVE_SECRETKEY`). Set before connecting.
    public func makeCurveClient(serverPublicKey: String, keys: CurveKeyPair) throws {
        try requireKey(serverPublicKey, "ZMQ_CURVE_SERVERKEY")
        try requireKey(keys.publicKey, "ZMQ_CURVE_PUBLICKEY")
        try requireKey(keys.secretKey, "ZMQ_CURVE_SECRETKEY")
        try setOption(ZMQ_CURVE_SERVERKEY, "ZMQ_CURVE_SERVERKEY", bytes: Array(serverPublicKey.utf8))
        try setOption(ZMQ_CURVE_PUBLICKEY, "ZMQ_CURVE_PUBLICKEY", bytes: Array(keys.publicKey.utf8))
        try setOption(ZMQ_CURVE_SECRETKEY, "ZMQ_CURVE_SECRETKEY", bytes: Array(keys.secretKey.utf8))
    }

    /// Allows IPv6 as well as IPv4 on tcp endpoints (`ZMQ_IPV6`).
    public func setIPv6(_ on: Bool) throws {
        try setOption(ZMQ_IPV6, "ZMQ_IPV6", int32: on ? 1 : 0)
    }

    // MARK: - zmq_setsockopt wrappers

    private func requireKey(_ key: String, _ name: String) throws {
        guard Z85.isValidKey(key) else { throw ZMQError(code: EINVAL, operation: "zmq_setsockopt(\(name))") }
    }

    private func setOption(_ option: Int32, _ name: String, int32 value: Int32) throws {
        var value = value
        try setOption(option, name, pointer: &value, size: MemoryLayout<Int32>.size)
    }

    private func setOption(_ option: Int32, _ name: String, int64 value: Int64) throws {
        var value = value
        try setOption(option, name, pointer: &value, size: MemoryLayout<Int64>.size)
    }

    private func setOption(_ option: Int32, _ name: String, bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in
            try setOption(option, name, pointer: buffer.baseAddress, size: buffer.count)
        }
    }

    private func setOption(_ option: Int32, _ name: String, pointer: UnsafeRawPointer?, size: Int) throws {
        let operation = "zmq_setsockopt(\(name))"
        try check(zmq_setsockopt(liveHandle(operation), option, pointer, size), operation)
    }
}
