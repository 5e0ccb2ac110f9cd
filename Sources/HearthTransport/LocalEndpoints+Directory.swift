import Foundation

extension LocalEndpoints {
    /// A local socket's directory that another user could tamper with.
    public struct UnsafeDirectory: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        /// What the user can do about it, e.g. remove the directory or set `HEARTH_RUNTIME_DIR`.
        public var remedy: String
        public var description: String {
            "\(path): \(reason); the local socket would not be the user's own. \(remedy)"
        }
    }

    /// Makes the directory for a local socket (mode 0700, the last component created exclusively) if it is missing;
    /// then checks it with `lstat`: a directory, not a symbolic link, owned by this user (or root), and writable by
    /// nobody else, sticky or not.
    ///
    /// The socket file's mode 0600 keeps other users from connecting, but in a directory another user can write to (or
    /// one that another user made first, such as a squatted `/tmp/hearth-UID`) they could replace the socket with their
    /// own and answer the apps in the daemon's name. A sticky shared directory is refused too: another user may not
    /// replace the daemon's socket there, but may bind one before the daemon starts. Clients call it as well, before
    /// they connect: a directory they made is theirs, so nobody can put a socket in it while they wait for the daemon.
    public static func prepareSocketDirectory(_ path: String) throws {
        let path = path.isEmpty ? "." : path
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw unsafe(path, String(cString: strerror(errno))) }
            try makeOwnerOnlyDirectory(path)
            guard lstat(path, &info) == 0 else { throw unsafe(path, String(cString: strerror(errno))) }
        }
        try checkOwnDirectory(path, info)
    }

    /// Creates `path` with mode 0700; its parents as needed. Another process making it first is not an error here:
    /// the check that follows decides whether it can be used.
    private static func makeOwnerOnlyDirectory(_ path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw unsafe(path, "cannot create it: \(String(cString: strerror(errno)))")
        }
    }

    /// Refuses a directory that is a symbolic link, not a directory, someone else's, or writable by others.
    static func checkOwnDirectory(_ path: String, _ info: stat) throws {
        guard info.st_mode & S_IFMT != S_IFLNK else {
            throw unsafe(path, "is a symbolic link, which another user may have planted")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw unsafe(path, "not a directory") }
        guard info.st_uid == getuid() || info.st_uid == 0 else {
            throw unsafe(path, "owned by uid \(info.st_uid), not by this user (uid \(getuid()))")
        }
        let permissions = String(info.st_mode & 0o7777, radix: 8)
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw UnsafeDirectory(
                path: path, reason: "other users may write to it (mode \(permissions))",
                remedy: "Run `chmod 700 \(path)` if it is yours and holds nothing you did not put there; "
                    + runtimeDirectoryHint)
        }
    }

    private static func unsafe(_ path: String, _ reason: String) -> UnsafeDirectory {
        UnsafeDirectory(
            path: path, reason: reason,
            remedy: "Remove it (ask its owner or root if it is not yours), " + runtimeDirectoryHint)
    }

    /// How to put the sockets elsewhere.
    static let runtimeDirectoryHint =
        "or set XDG_RUNTIME_DIR or HEARTH_RUNTIME_DIR to a directory of your own (mode 0700)."
}
