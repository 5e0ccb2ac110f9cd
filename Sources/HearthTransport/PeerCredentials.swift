import Foundation

/// Who listens on a local stream socket, asked of the kernel (`SO_PEERCRED`) rather than read from the file: it holds
/// for an abstract socket, which has no file, and for a socket file swapped after it was checked.
enum PeerCredentials {
    /// How long to keep trying while the listener's backlog is full.
    static let busyAttempts = 50

    /// The uid of the process listening on `path` (`@name`: a Linux abstract socket), or nil when nobody listens
    /// (no file, or a stale file: the client then waits for the daemon as before). Connects and closes at once; the
    /// daemon sees a connection that ends before its greeting.
    static func listenerUID(_ path: String) throws -> uid_t? {
        #if os(Linux)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw LocalEndpoints.UnsafeSocket(path: path, reason: "the path is too long for a local socket")
        }
        // As libzmq does: an abstract name starts with a NUL byte, and the length counts no trailing NUL.
        if path.hasPrefix("@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count)
        for _ in 0..<busyAttempts {
            let fd = socket(
                AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw failure(path, "cannot make a socket") }
            defer { close(fd) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
            }
            if connected != 0 {
                switch errno {
                case ENOENT, ECONNREFUSED: return nil
                case EAGAIN:
                    usleep(10_000)
                    continue
                default: throw failure(path, "cannot connect")
                }
            }
            // struct ucred: pid, uid, gid (Swift does not import it).
            var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
            var size = socklen_t(MemoryLayout.size(ofValue: credentials))
            guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0 else {
                throw failure(path, "cannot read the listener's credentials")
            }
            return uid_t(credentials.uid)
        }
        throw LocalEndpoints.UnsafeSocket(path: path, reason: "its listener accepts no connection; cannot check it")
        #else
        return nil
        #endif
    }

    private static func failure(_ path: String, _ what: String) -> LocalEndpoints.UnsafeSocket {
        LocalEndpoints.UnsafeSocket(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}
