import Foundation

extension DeviceStore {
    /// A state directory the daemon will not use: another user's, or not a plain directory.
    public struct UnsafeStateDirectory: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String {
            "\(path): \(reason); a device's state (its key, its pending questions) must be its user's alone: "
                + "give the daemon a state directory of its own"
        }
    }

    /// Makes the state directory owner-only: created 0700 if missing; if it exists, checked with `lstat` (a directory
    /// of this user's, not a symbolic link another user could point elsewhere) and its mode narrowed to 0700, which
    /// closes the files an older version left readable.
    public static func prepareStateDirectory(_ path: String) throws {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw UnsafeStateDirectory(path: path, reason: Self.lastError) }
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            }
            guard mkdir(path, 0o700) == 0 || errno == EEXIST, lstat(path, &info) == 0 else {
                throw UnsafeStateDirectory(path: path, reason: "cannot create it: \(Self.lastError)")
            }
        }
        guard info.st_mode & S_IFMT != S_IFLNK else {
            throw UnsafeStateDirectory(path: path, reason: "is a symbolic link; give the directory's real path")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw UnsafeStateDirectory(path: path, reason: "not a directory")
        }
        guard info.st_uid == getuid() else {
            throw UnsafeStateDirectory(
                path: path, reason: "owned by uid \(info.st_uid), not by this user (uid \(getuid()))")
        }
        if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw UnsafeStateDirectory(path: path, reason: "cannot make it owner-only: \(Self.lastError)")
        }
    }

    /// Creates the database file 0600 before SQLite opens it (SQLite gives its `-wal` and `-shm` files the database's
    /// mode), and narrows any of the three that an older version left readable by others.
    static func prepareDatabaseFile(_ path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw UnsafeStateDirectory(path: path, reason: "cannot open it: \(Self.lastError)") }
        close(fd)
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            if lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0 {
                chmod(file, 0o600)
            }
        }
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
