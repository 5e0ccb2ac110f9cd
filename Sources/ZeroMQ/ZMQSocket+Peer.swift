import CZeroMQ
import Foundation

extension ZMQSocket {
    /// Drops the one connection a message came in on (`ZMQMessage.sourceDescriptor`), by shutting its TCP socket
    /// down: libzmq's I/O thread then reads the end of the stream and closes the connection as if the peer had gone,
    /// freeing what it queued for it (and, on XPUB, the subscriptions it kept for it). libzmq has no call that closes
    /// one peer of a ROUTER or XPUB socket; this is the narrow way to do it without reopening the socket and so
    /// dropping every peer.
    ///
    /// The descriptor belongs to libzmq's I/O thread, which may have closed it meanwhile and reused the number: it is
    /// shut down only if it still is a connected (not listening) stream socket whose local port is this socket's
    /// bound port, so the worst a reused number can cost is another peer of this socket reconnecting. Returns whether
    /// it was shut down.
    @discardableResult
    public func dropPeer(descriptor: Int32) -> Bool {
        guard descriptor >= 0, let endpoint = try? lastEndpoint, let port = Self.port(of: endpoint) else {
            return false
        }
        var listening: Int32 = 0
        var type: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 0 else {
            return false
        }
        size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &size) == 0, type == Int32(SOCK_STREAM.rawValue)
        else { return false }
        guard Self.localPort(of: descriptor) == port else { return false }
        return shutdown(descriptor, Int32(SHUT_RDWR)) == 0
    }

    /// The port of a `tcp://host:port` endpoint.
    static func port(of endpoint: String) -> UInt16? {
        guard endpoint.hasPrefix("tcp://"), let colon = endpoint.lastIndex(of: ":") else { return nil }
        return UInt16(endpoint[endpoint.index(after: colon)...])
    }

    /// The local port a TCP socket is bound to, IPv4 or IPv6.
    static func localPort(of descriptor: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard rc == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            return nil
        }
    }
}
