import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler appending lines to a file, formatted like `StreamLogHandler`, so an in-process daemon's log
/// reads like a process's and `recentLog` works the same.
struct FileLogHandler: LogHandler {
    /// The file every logger of a daemon appends to; writes are serialized. Each line opens the file, appends and
    /// closes it: no descriptor stays open for another part of the test process to close or reuse by mistake.
    final class Sink: Sendable {
        private let path: String
        private let open = Mutex(true)

        init(path: String) {
            self.path = path
        }

        func write(_ line: String) {
            open.withLock { isOpen in
                guard isOpen else { return }
                let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
                guard fd >= 0 else { return }
                var bytes = Array(line.utf8)[...]
                while !bytes.isEmpty {
                    let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                    if written <= 0 { break }
                    bytes = bytes.dropFirst(written)
                }
                Glibc.close(fd)
            }
        }

        /// Drops later lines (the daemon has stopped and its directory may be removed).
        func close() {
            open.withLock { $0 = false }
        }
    }

    let label: String
    let sink: Sink
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields =
            all.isEmpty
            ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.write("\(Date().ISO8601Format()) \(event.level) \(label) :\(fields) \(event.message)\n")
    }
}
