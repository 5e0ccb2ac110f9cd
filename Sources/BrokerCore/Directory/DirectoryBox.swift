import Synchronization

/// The current directory, replaceable while the broker runs; read on the I/O thread for every CURVE handshake.
public final class DirectoryBox: Sendable {
    private struct State {
        var directory: Directory
        var generation: UInt64 = 0
    }

    private let value: Mutex<State>

    public init(_ directory: Directory) {
        value = Mutex(State(directory: directory))
    }

    public var current: Directory { value.withLock { $0.directory } }

    /// The current directory and its generation, which every `replace` advances: work checked against one
    /// generation is checked again if it runs under another.
    public var versioned: (directory: Directory, generation: UInt64) {
        value.withLock { ($0.directory, $0.generation) }
    }

    /// The generation of the current directory.
    public var generation: UInt64 { value.withLock { $0.generation } }

    public func replace(_ directory: Directory) {
        value.withLock { state in
            state.directory = directory
            state.generation &+= 1
        }
    }
}
