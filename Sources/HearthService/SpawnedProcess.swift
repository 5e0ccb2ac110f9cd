import CSpawn
import Foundation
import Synchronization

/// A child process started with `posix_spawn` and reaped by a thread of its own.
///
/// Not Foundation's `Process`: on Linux (swift-corelibs-foundation with Swift 6.3.1) `Process.run()` now and then
/// crashes the parent, reading past a buffer while it lists `/proc/self/fd` (fixed upstream in PR #5472); a test
/// process with many descriptors open (ZeroMQ, database connections) that starts many daemons met it about once in
/// eight full runs. It also learns of an exit through a descriptor the child inherits, which a server that forks
/// (`pg_ctl start`) keeps open forever.
public final class SpawnedProcess: Sendable {
    public let pid: Int32
    private let exit = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    private init(pid: Int32) { self.pid = pid }

    /// Starts `executable` with `arguments`, `base` (by default this process's environment) with `environment` added,
    /// standard input from the file `input` (by default /dev/null) and standard output and error to `output`
    /// (appended, or truncated first), or to /dev/null; with `keepError`, standard error stays this process's.
    /// The child starts with no other descriptor of this process, no signal blocked and every signal's default action.
    public static func launch(
        _ executable: String, arguments: [String], base: [String: String]? = nil, environment: [String: String] = [:],
        input: String? = nil, output: String? = nil, append: Bool = true, keepError: Bool = false,
        onExit: (@Sendable (Int32) -> Void)? = nil
    ) throws -> SpawnedProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        let flags = output == nil ? O_WRONLY : O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", flags, 0o644)
        if !keepError { posix_spawn_file_actions_adddup2(&actions, 1, 2) }
        // Nothing else of this process's: a listening socket a child inherited would stay bound while it lives.
        hearth_spawn_close_from(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let merged = (base ?? ProcessInfo.processInfo.environment).merging(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [
                    NSLocalizedDescriptionKey: "could not start \(executable): \(String(cString: strerror(result)))"
                ])
        }
        let process = SpawnedProcess(pid: pid)
        Thread.detachNewThread { process.reap(onExit) }
        return process
    }

    private func reap(_ onExit: (@Sendable (Int32) -> Void)?) {
        var raw: Int32 = 0
        var reaped = waitpid(pid, &raw, 0)
        while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &raw, 0) }
        let signal = raw & 0x7F
        let status = reaped < 0 ? -1 : (signal == 0 ? (raw >> 8) & 0xFF : signal)
        let waiters = exit.withLock { state in
            state.status = status
            defer { state.waiters = [] }
            return state.waiters
        }
        onExit?(status)
        for waiter in waiters { waiter.resume(returning: status) }
    }

    /// Whether the process has not yet exited (or not yet been reaped).
    public var isRunning: Bool { exit.withLock { $0.status == nil } }

    /// The exit status once it exited: its code, or the signal that ended it (as Foundation's `terminationStatus`).
    public var status: Int32? { exit.withLock { $0.status } }

    /// Waits until the process exits; returns `status`.
    public func waitUntilExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let done = exit.withLock { state -> Int32? in
                if let status = state.status { return status }
                state.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
