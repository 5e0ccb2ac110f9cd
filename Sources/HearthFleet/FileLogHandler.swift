import Foundation
import Logging
import Synchronization

/// A swift-log handler appending lines to a file, formatted like `StreamLogHandler`, so an in-process daemon's log
/// reads like a process's and `recentLog` works the same.
struct FileLogHandler: LogHandler {
    /// One open file shared by every logger of a daemon; writes are serialized.
    final class Sink: Sendable {
        private let handle: Mutex<FileHandle?>

        init(path: String) {
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            let handle = FileHandle(forWritingAtPath: path)
            _ = try? handle?.seekToEnd()
            self.handle = Mutex(handle)
        }

        func write(_ line: String) {
            handle.withLock { $0?.write(Data(line.utf8)) }
        }

        func close() {
            handle.withLock { handle in
                try? handle?.close()
                handle = nil
            }
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
        let fields = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.write("\(Date().ISO8601Format()) \(event.level) \(label) :\(fields) \(event.message)\n")
    }
}
