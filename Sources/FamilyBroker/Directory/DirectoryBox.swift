import Synchronization

/// The current directory, replaceable while the broker runs; read on the I/O thread for every CURVE handshake.
public final class DirectoryBox: Sendable {
    private let value: Mutex<Directory>

    public init(_ directory: Directory) {
        value = Mutex(directory)
    }

    public var current: Directory { value.withLock { $0 } }

    public func replace(_ directory: Directory) { value.withLock { $0 = directory } }
}
