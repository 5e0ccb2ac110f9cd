import Foundation
import HearthService

/// A small file system of a test's own, mounted on a directory, to run a daemon's state on a disk that fills up: a
/// tmpfs with a size limit or, where a tmpfs cannot be mounted, an ext4 image on a loop device. Mounting needs root
/// (CI runs as root); when neither works, `mount` throws naming why, so that a test needing a full disk fails
/// instead of passing without one.
public final class SmallFilesystem: Sendable {
    /// Why a file system could not be mounted, filled or unmounted.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Where it is mounted.
    public let directory: String
    /// `tmpfs` or `loop-mounted ext4 image`.
    public let kind: String
    private let image: String?

    private init(directory: String, kind: String, image: String?) {
        self.directory = directory
        self.kind = kind
        self.image = image
    }

    /// Mounts a file system of `megabytes` on `directory` (made if missing, and left empty).
    public static func mount(at directory: String, megabytes: Int) async throws -> SmallFilesystem {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard geteuid() == 0 else {
            throw Failure(description: "mounting a small file system needs root; this test runs as uid \(geteuid())")
        }
        let tmpfs = await run(
            "/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", directory])
        if tmpfs.status == 0 { return SmallFilesystem(directory: directory, kind: "tmpfs", image: nil) }
        // A container may refuse tmpfs mounts but allow loop devices.
        let image = directory + ".img"
        let steps: [(String, [String])] = [
            ("/usr/bin/truncate", ["-s", "\(megabytes)M", image]),
            ("/usr/sbin/mkfs.ext4", ["-q", "-F", "-m", "0", image]),
            ("/usr/bin/mount", ["-o", "loop", image, directory]),
        ]
        for (program, arguments) in steps {
            let step = await run(program, arguments)
            guard step.status == 0 else {
                try? FileManager.default.removeItem(atPath: image)
                throw Failure(
                    description: "cannot mount a small file system on \(directory): tmpfs failed (\(tmpfs.output)), "
                        + "and so did the loop-mounted image (\(program) exited \(step.status): \(step.output))")
            }
        }
        return SmallFilesystem(directory: directory, kind: "loop-mounted ext4 image", image: image)
    }

    /// Bytes still free.
    public var freeBytes: UInt64 {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return 0 }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Writes a file at `path` (inside the file system) until no space is left; returns how many bytes it holds.
    @discardableResult
    public func fill(_ path: String) throws -> Int {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path): errno \(errno)") }
        defer { close(fd) }
        var written = 0
        // Large pieces first, then down to single bytes: what is left afterwards is less than a byte's allocation.
        for size in [1 << 20, 1 << 16, 1 << 12, 512, 1] {
            let chunk = [UInt8](repeating: 0xAB, count: size)
            while true {
                let result = chunk.withUnsafeBytes { write(fd, $0.baseAddress, size) }
                if result <= 0 { break }
                written += result
            }
            guard errno == ENOSPC || errno == EFBIG else {
                throw Failure(description: "filling \(path) stopped on errno \(errno), not on a full disk")
            }
        }
        fsync(fd)
        return written
    }

    /// Unmounts it (lazily if still busy) and removes its image, if any.
    public func unmount() async {
        if await Self.run("/usr/bin/umount", [directory]).status != 0 {
            _ = await Self.run("/usr/bin/umount", ["-l", directory])
        }
        if let image { try? FileManager.default.removeItem(atPath: image) }
    }

    private static func run(_ program: String, _ arguments: [String]) async -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-mount-\(UUID()).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        do {
            let process = try SpawnedProcess.launch(program, arguments: arguments, output: output, append: false)
            let status = await process.waitUntilExit()
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return (status, text.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            return (-1, "\(program) could not start: \(error)")
        }
    }
}
