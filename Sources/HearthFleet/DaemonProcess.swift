import Foundation
import HearthService
import Synchronization

/// One daemon run as a real process, its output in a log file; it can be stopped, killed, paused and restarted.
public final class DaemonProcess: FleetDaemon {
    /// `family-broker`, `child-device` or `parent-device`, with the device id: `child-device emma-tablet`.
    public let name: String
    public let executable: String
    public let arguments: [String]
    public let environment: [String: String]
    /// Where the process's standard error and output go (appended across restarts).
    public let logFile: String

    private struct State: ~Copyable {
        var process: SpawnedProcess?
        var exitWaiters: [CheckedContinuation<Int32, Never>] = []
        var lastExit: Int32?
    }

    private let state = Mutex(State())

    /// A process to run as `executable arguments`, with `environment` added to this process's, logging to `logFile`.
    public init(
        name: String, executable: String, arguments: [String], environment: [String: String] = [:], logFile: String
    ) {
        self.name = name
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.logFile = logFile
    }

    /// The process id while it runs.
    public var pid: Int32? { state.withLock { $0.process?.pid } }

    public var isRunning: Bool { state.withLock { $0.process?.isRunning ?? false } }

    /// Starts the process (again, after a stop or a kill).
    public func start() throws {
        guard !isRunning else { return }
        if !FileManager.default.fileExists(atPath: logFile) {
            _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        log.seekToEndOfFile()
        log.write("---- start \(name) \(Date())\n".data(using: .utf8)!)
        try? log.close()
        state.withLock { $0.lastExit = nil }
        let process = try SpawnedProcess.launch(
            executable, arguments: arguments, environment: environment, output: logFile
        ) { [weak self] status in
            guard let self else { return }
            let waiters = self.state.withLock { state in
                state.lastExit = status
                defer { state.exitWaiters = [] }
                return state.exitWaiters
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }
        state.withLock { $0.process = process }
    }

    /// Sends a signal (SIGTERM, SIGKILL, SIGSTOP, SIGCONT...).
    public func signal(_ signal: Int32) {
        if let pid, pid > 0 { kill(pid, signal) }
    }

    /// Waits for the process to exit, up to `timeout`; returns its status, or nil if it is still running.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32? {
        let running = state.withLock { $0.process?.isRunning ?? false }
        // The reaper records the status before it tells anyone: read it there if the exit is not yet recorded here.
        guard running else { return state.withLock { $0.lastExit ?? $0.process?.status } }
        return await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let done = self.state.withLock { state -> Int32? in
                        if let exit = state.lastExit { return exit }
                        state.exitWaiters.append(continuation)
                        return nil
                    }
                    if let done { continuation.resume(returning: done) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if first == nil {
                // Unblock the waiter still parked on exit, so the group can finish.
                let waiters = self.state.withLock { state in
                    defer { state.exitWaiters = [] }
                    return state.exitWaiters
                }
                for waiter in waiters { waiter.resume(returning: -1) }
            }
            return first
        }
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace`. Returns the exit status.
    @discardableResult
    public func stop(grace: Duration) async -> Int32? {
        guard isRunning else { return state.withLock { $0.lastExit } }
        signal(SIGCONT)
        signal(SIGTERM)
        if let status = await waitForExit(timeout: grace) { return status }
        signal(SIGKILL)
        return await waitForExit(timeout: .seconds(5))
    }

    /// SIGKILL: a crash, with no chance to clean up.
    public func crash() async {
        signal(SIGKILL)
        await waitForExit(timeout: .seconds(5))
    }

    public func pause() throws { signal(SIGSTOP) }

    public func resume() throws { signal(SIGCONT) }
}
