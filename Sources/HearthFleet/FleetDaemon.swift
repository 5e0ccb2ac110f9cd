import Foundation

/// One daemon of a fleet, run as a process (`DaemonProcess`) or inside the test process (`InProcessDaemon`), with the
/// faults a test injects. Its log goes to `logFile` either way.
public protocol FleetDaemon: AnyObject, Sendable {
    /// `family-broker`, `child-device` or `parent-device`, with the device id: `child-device emma-tablet`.
    var name: String { get }
    /// Where the daemon's log goes (appended across restarts).
    var logFile: String { get }
    var isRunning: Bool { get }
    /// The process id while it runs as a process; nil in-process.
    var pid: Int32? { get }
    /// Starts the daemon (again, after a stop or a crash).
    func start() async throws
    /// Stops it gracefully (commands already read are answered); a process gets SIGKILL after `grace`.
    @discardableResult func stop(grace: Duration) async -> Int32?
    /// Ends it with no chance to clean up: SIGKILL for a process (in-process: an immediate stop, see `InProcessDaemon`).
    func crash() async
    /// Freezes it (SIGSTOP) with its connections open; in-process this throws `FleetError.notSupportedInProcess`.
    func pause() throws
    /// Lets a paused daemon run again (SIGCONT).
    func resume() throws
}

extension FleetDaemon {
    @discardableResult
    public func stop() async -> Int32? { await stop(grace: .seconds(5)) }

    /// The last `lines` lines of the log.
    public func recentLog(lines: Int = 30) -> String {
        guard let text = try? String(contentsOfFile: logFile, encoding: .utf8) else { return "" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
