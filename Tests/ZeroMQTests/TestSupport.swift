import ZeroMQ

/// Creates a socket with linger 0 so closing it never delays `terminate()`.
func makeSocket(_ context: ZMQContext, _ type: ZMQSocketType) throws -> ZMQSocket {
    let socket = try ZMQSocket(context: context, type: type)
    try socket.setLinger(milliseconds: 0)
    return socket
}

/// Receives one message, or nil if none arrives within the timeout, so a failing test cannot hang.
func receive(_ socket: ZMQSocket, timeoutMilliseconds: Int = 2000) throws -> ZMQMessage? {
    var poller = ZMQPoller()
    poller.add(socket)
    guard try poller.poll(timeoutMilliseconds: timeoutMilliseconds) > 0 else { return nil }
    return try socket.receive(dontWait: true)
}

/// UTF-8 bytes of a string, for terse frame literals.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}
