public import Foundation
import Synchronization

/// A test clock: the real time plus an offset in seconds read from a file, so a test can move the broker's "now"
/// forward (question expiry, birthdays) without waiting. The file holds one decimal number; it is re-read only when
/// its inode, size or modification time change, so `now()` costs one `stat` per call.
///
/// A missing or unreadable file means no offset. Used by `family-broker-lab`'s `--clock-file` and
/// `--commit-delay-file` and by HearthFleet's clock faults; the shipped `family-broker` has no such clock.
public final class OffsetClock: Sendable {
    /// The file holding the offset in seconds.
    public let path: String

    private struct Seen: Equatable {
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
    }

    private struct Cache {
        var seen: Seen?
        var offset: TimeInterval = 0
    }

    private let cache = Mutex(Cache())

    public init(path: String) {
        self.path = path
    }

    /// The offset currently in the file, in seconds (0 when there is none).
    public var offset: TimeInterval {
        var info = stat()
        guard stat(path, &info) == 0 else {
            cache.withLock { $0 = Cache() }
            return 0
        }
        let seen = Seen(
            inode: UInt64(info.st_ino), size: Int64(info.st_size), seconds: Int(info.st_mtim.tv_sec),
            nanoseconds: Int(info.st_mtim.tv_nsec))
        if let cached = cache.withLock({ $0.seen == seen ? $0.offset : nil }) { return cached }
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let offset = TimeInterval(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        cache.withLock { $0 = Cache(seen: seen, offset: offset) }
        return offset
    }

    /// The real time moved by the file's offset.
    @Sendable public func now() -> Date {
        Date().addingTimeInterval(offset)
    }

    /// Writes an offset to `path` atomically (a new inode each time, so a reader never sees a half-written number).
    public static func write(offset: TimeInterval, to path: String) throws {
        try "\(offset)\n".write(toFile: path, atomically: true, encoding: .utf8)
    }
}
