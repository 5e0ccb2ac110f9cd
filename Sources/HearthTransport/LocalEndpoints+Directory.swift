import Foundation

extension LocalEndpoints {
    /// A local socket's directory that another user could tamper with.
    public struct UnsafeDirectory: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason); the local socket would not be the user's own" }
    }

    /// Makes the directory for a local socket (mode 0700) if it is missing; if it exists, checks that it belongs to this
    /// user (or root) and that no other user may write to it, unless it is sticky like `/tmp`.
    ///
    /// The socket file's mode 0600 keeps other users from connecting, but in a directory another user can write to (or
    /// one that another user made first, such as a squatted `/tmp/hearth-UID`) they could replace the socket with their
    /// own and answer the apps in the daemon's name.
    public static func prepareSocketDirectory(_ path: String) throws {
        let path = path.isEmpty ? "." : path
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw UnsafeDirectory(path: path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw UnsafeDirectory(path: path, reason: "not a directory") }
        guard info.st_uid == getuid() || info.st_uid == 0 else {
            throw UnsafeDirectory(path: path, reason: "owned by uid \(info.st_uid), not by this user (uid \(getuid()))")
        }
        let writableByOthers = info.st_mode & (S_IWGRP | S_IWOTH) != 0
        guard !writableByOthers || info.st_mode & S_ISVTX != 0 else {
            throw UnsafeDirectory(
                path: path, reason: "other users may write to it (mode \(String(info.st_mode & 0o7777, radix: 8)))")
        }
    }
}
