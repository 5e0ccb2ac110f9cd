import Foundation
import Synchronization

/// Free TCP ports on the loopback interface, for servers a test starts (PostgreSQL, chromedriver, brokers).
///
/// A port is picked below the kernel's ephemeral range (`ip_local_port_range`): a port bound to 0 and closed comes from
/// that range, where any outgoing connection made before the server binds it (a relay's, a client's) may take it, and
/// the server then exits with "address in use". Below the range only another explicit bind can take it; the ports this
/// process handed out are never handed out again.
public enum LoopbackPort {
    /// Why no port could be had.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    private static let handedOut = Mutex<Set<Int>>([])

    /// A TCP port on 127.0.0.1 that was free a moment ago, outside the ephemeral range when there is room below it.
    public static func free() throws -> Int {
        let candidates = belowEphemeralRange()
        if !candidates.isEmpty {
            for _ in 0..<64 {
                let port = Int.random(in: candidates)
                let claimed = handedOut.withLock { $0.insert(port).inserted }
                if claimed, (try? bind(port: port)) != nil { return port }
            }
        }
        return try bind(port: 0)
    }

    /// Ports from 10,000 up to the first ephemeral one; empty when the range starts lower.
    package static func belowEphemeralRange() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let first = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        return first > 11_000 ? 10_000...(first - 1) : 1...0
    }

    /// Binds `port` (0: any) on 127.0.0.1 and returns the bound port; the socket is closed again.
    private static func bind(port: Int) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                Glibc.bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "could not bind port \(port): errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
