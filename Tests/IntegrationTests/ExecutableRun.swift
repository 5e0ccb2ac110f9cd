import Foundation
import HearthFleet

/// Runs one of the package's executables to completion and returns its exit status and output (stdout + stderr).
enum ExecutableRun {
    static func run(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32, output: String) {
        try await run(
            path: try BinaryLocator.directory() + "/" + name, arguments, environment: environment, timeout: timeout)
    }

    /// Runs the executable at `path` as `run(_:_:environment:timeout:)` does. Not Foundation's `Process`, whose
    /// `run()` can crash the test process on Linux (see `SpawnedProcess`).
    static func run(
        path: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32, output: String) {
        let name = (path as NSString).lastPathComponent
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-run-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        // Only the variables we pass under the daemons' prefixes: the test runner's own must not leak in.
        let base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        let process = try SpawnedProcess.launch(
            path, arguments: arguments, base: base, environment: environment, output: output.path)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.pid, SIGTERM)
            _ = await process.waitUntilExit()
            throw FleetError("\(name) did not exit within \(timeout)")
        }
        let status = await process.waitUntilExit()
        return (status, try String(contentsOf: output, encoding: .utf8))
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-it-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
