import Foundation

extension LocalEndpoints {
    /// A local socket that may not be the daemon's: another user's file, or a listener running as another user.
    public struct UnsafeSocket: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String {
            "\(path): \(reason); refusing to talk to it (nothing was sent): another user may be listening in the "
                + "daemon's place. Remove it (ask its owner or root if it is not yours), "
                + LocalEndpoints.runtimeDirectoryHint
        }
    }

    /// The socket path of an `ipc://` endpoint, or nil for any other transport.
    public static func socketPath(ofEndpoint endpoint: String) -> String? {
        endpoint.hasPrefix("ipc://") ? String(endpoint.dropFirst("ipc://".count)) : nil
    }

    /// Checks, before a client sends anything, that the daemon at `path` is this user's: its directory is the user's
    /// own (made, owner-only, if missing; see `prepareSocketDirectory`), the socket file (if it exists yet) is a
    /// socket owned by this user and not a symbolic link, and the process listening on it (if any) runs as this user.
    /// A Linux abstract socket (`@name`) has no file: only its listener is checked. Blocks briefly (a file check and
    /// a local connect): call it off the cooperative pool.
    public static func verifyDaemonSocket(_ path: String) throws {
        if !path.hasPrefix("@") {
            try prepareSocketDirectory((path as NSString).deletingLastPathComponent)
            var info = stat()
            guard lstat(path, &info) == 0 else {
                // Not there yet: the directory is the user's, so only the user's daemon can make it.
                guard errno == ENOENT else { throw UnsafeSocket(path: path, reason: String(cString: strerror(errno))) }
                return
            }
            guard info.st_mode & S_IFMT != S_IFLNK else {
                throw UnsafeSocket(path: path, reason: "is a symbolic link, not the daemon's socket")
            }
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw UnsafeSocket(path: path, reason: "not a socket") }
            guard info.st_uid == getuid() else {
                throw UnsafeSocket(
                    path: path, reason: "owned by uid \(info.st_uid), not by this user (uid \(getuid()))")
            }
        }
        if let uid = try PeerCredentials.listenerUID(path), uid != getuid() {
            throw UnsafeSocket(path: path, reason: "the process listening on it runs as uid \(uid), not as this user")
        }
    }
}
