import Foundation

/// Free TCP ports on the loopback interface, for servers a test starts (PostgreSQL, chromedriver, brokers).
public enum LoopbackPort {
    /// Why no port could be had.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    public static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "could not find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
