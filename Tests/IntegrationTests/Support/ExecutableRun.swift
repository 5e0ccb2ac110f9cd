import Foundation
import HearthFleet
import HearthService

/// Runs one of the package's executables to completion and returns its exit status and output (stdout + stderr).
enum ExecutableRun {
    static func run(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32, output: String) {
        try await run(
            path: try BinaryLocator.directory() + "/" + name, arguments, environment: environment, input: input,
            timeout: timeout)
    }

    /// Runs the executable at `path` as `run(_:_:environment:input:timeout:)` does, `input` (if any) as its standard
    /// input. Not Foundation's `Process`, whose `run()` can crash the test process on Linux (see `SpawnedProcess`).
    static func run(
        path: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32, output: String) {
        let name = (path as NSString).lastPathComponent
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-run-\(UUID().uuidString).log")
        var inputFile: String?
        defer {
            try? FileManager.default.removeItem(at: output)
            if let inputFile { try? FileManager.default.removeItem(atPath: inputFile) }
        }
        // Written, not `createFile`d: a file that could not be made is this run's error, not a missing log later.
        try Data().write(to: output)
        if let input {
            let path = output.path + ".in"
            inputFile = path
            try Data(input.utf8).write(to: URL(fileURLWithPath: path))
        }
        // Only the variables we pass under the daemons' prefixes: the test runner's own must not leak in.
        let base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        let process = try SpawnedProcess.launch(
            path, arguments: arguments, base: base, environment: environment, input: inputFile, output: output.path)
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

extension SpawnedProcess {
    /// Sends SIGTERM, waits up to 10 s for the exit (then SIGKILL), blocking the calling thread: for a test's `defer`,
    /// which cannot await.
    func stopBlocking() {
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(10)
        while isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if isRunning { kill(pid, SIGKILL) }
        while isRunning { usleep(10_000) }
    }
}
