import Foundation
import HearthService
public import Logging
public import ServiceLifecycle
import Synchronization

/// A daemon run as a `ServiceLifecycle` service inside the test process (the fleet's `.inProcess` mode): the same
/// `FamilyBrokerService` or `DeviceRuntime` as the executables, over the same sockets, logging to `logFile`.
///
/// Faults that need a process are emulated or refused: `crash()` is an immediate graceful stop (unlike SIGKILL,
/// commands already read are still committed and answered); `pause()` and `resume()` throw
/// `FleetError.notSupportedInProcess`.
public final class InProcessDaemon: FleetDaemon {
    public let name: String
    public let logFile: String
    private let label: String
    private let makeService: @Sendable (Logger) throws -> any Service
    private let sink: FileLogHandler.Sink

    private struct State {
        var group: ServiceGroup?
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// `makeService` builds a fresh service for each start, with the daemon's logger.
    public init(
        name: String, label: String, logFile: String, makeService: @escaping @Sendable (Logger) throws -> any Service
    ) {
        self.name = name
        self.label = label
        self.logFile = logFile
        self.makeService = makeService
        sink = FileLogHandler.Sink(path: logFile)
    }

    public var isRunning: Bool { state.withLock { $0.group != nil } }

    /// Always nil: the daemon runs inside this process.
    public var pid: Int32? { nil }

    public func start() async throws {
        guard !isRunning else { return }
        sink.write("---- start \(name) \(Date())\n")
        let sink = self.sink
        let label = self.label
        let logger = Logger(label: label) { label in FileLogHandler(label: label, sink: sink) }
        // A device's factory opens its SQLite file (creation, migrations, syncs): not on the cooperative pool, whose
        // few threads the fleet's other daemons and the caller's tasks share.
        let makeService = self.makeService
        let service = try await BlockingWork.run { try makeService(logger) }
        let group = ServiceGroup(services: [service], logger: logger)
        state.withLock { state in
            guard state.group == nil else { return }  // started meanwhile by another caller
            state.group = group
            state.task = Task { [weak self] in
                do {
                    try await group.run()
                } catch {
                    sink.write("\(Date().ISO8601Format()) error \(label) : exited: \(error)\n")
                }
                guard let self else { return }
                self.state.withLock { state in
                    if state.group === group { state.group = nil }
                }
            }
        }
    }

    @discardableResult
    public func stop(grace: Duration) async -> Int32? {
        guard let (group, task) = state.withLock({ state in state.group.map { ($0, state.task) } }) else { return 0 }
        await group.triggerGracefulShutdown()
        let finished = await Self.wait(for: task, timeout: grace)
        state.withLock { state in
            if state.group === group {
                state.group = nil
                state.task = nil
            }
        }
        return finished ? 0 : -1
    }

    public func crash() async {
        await stop(grace: .seconds(5))
    }

    public func pause() throws { throw FleetError.notSupportedInProcess("pause (SIGSTOP) of \(name)") }

    public func resume() throws { throw FleetError.notSupportedInProcess("resume (SIGCONT) of \(name)") }

    /// Closes the log file; the daemon must be stopped.
    func closeLog() { sink.close() }

    private static func wait(for task: Task<Void, Never>?, timeout: Duration) async -> Bool {
        guard let task else { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await task.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            // A service that does not finish its graceful shutdown in time is cancelled, as SIGKILL follows SIGTERM.
            if !first { task.cancel() }
            group.cancelAll()
            return first
        }
    }
}
