import Foundation
import HearthFleet
import HearthService
import Testing

/// `deploy/local/run` as a user runs it: three daemons with the demo family, keys made on the first run, a clean stop
/// on Ctrl-C (SIGINT), and state kept for the next run.
@Suite("deploy/local/run", .serialized, .tags(.fleet, .slow))
struct LocalRunTests {
    /// The script, spawned as a terminal would (`SpawnedProcess`: every signal unblocked and at its default
    /// disposition; Foundation's `Process` passes on the test runner's blocked signals, and a shell cannot trap a
    /// signal ignored at its start).
    final class Run: Sendable {
        let process: SpawnedProcess
        let output: String

        init(state: String) throws {
            let root = RepositoryRoot.url
            output = state + "/run-\(UUID().uuidString.prefix(6)).out"
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
            environment["HEARTH_BIN_DIR"] = try BinaryLocator.directory()
            environment["HEARTH_STATE"] = state
            // Free ports instead of the documented 9701-9703, which a developer's own run may hold: the environment
            // overrides config/*.yaml.
            for prefix in ["HEARTH_BROKER", "HEARTH_CHILD_DEVICE", "HEARTH_PARENT_DEVICE"] {
                environment[prefix + "_METRICS"] = "127.0.0.1:0"
            }
            let script = root.appendingPathComponent("deploy/local/run").path
            process = try SpawnedProcess.launch(
                script, arguments: [], base: environment, output: output, append: false)
        }

        var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        var isRunning: Bool { process.isRunning }

        /// Ctrl-C in the terminal.
        func interrupt() { kill(process.pid, SIGINT) }

        func waitUntilExit(timeout: Duration) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
            guard isRunning else { return true }
            kill(process.pid, SIGKILL)
            _ = await process.waitUntilExit()
            return false
        }
    }

    static func eventually(
        _ what: String, timeout: Duration = .seconds(60), run: Run, _ condition: () async -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return }
            if !run.isRunning { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw FleetError("deploy/local/run: \(what) did not happen; output:\n\(run.text)")
    }

    /// Every daemon of the run is ready on its ops endpoint (devices: linked to the broker).
    static func allReady(_ state: String) async -> Bool {
        for dir in ["broker", "alice-phone", "emma-tablet"] {
            guard let probe = try? OpsProbe(addressFile: state + "/" + dir + "/metrics.address"),
                let ready = try? await probe.readiness(), ready.ok
            else { return false }
        }
        return true
    }

    @Test func runsAllThreeStopsCleanlyOnCtrlCAndKeepsState() async throws {
        let state = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }

        let first = try Run(state: state)
        try await Self.eventually("all three daemons ready", run: first) {
            await Self.allReady(state) && first.text.contains("Ctrl-C stops all three.")
        }
        #expect(first.text.contains("logs:    \(state)/logs/"))
        let keys = try ["alice-phone.pub", "emma-tablet.pub"].map {
            try String(contentsOfFile: state + "/keys/" + $0, encoding: .utf8)
        }
        let brokerKey = try String(contentsOfFile: state + "/broker/broker.pub", encoding: .utf8)
        first.interrupt()
        #expect(await first.waitUntilExit(timeout: .seconds(20)), "the run stops on SIGINT")
        for daemon in ["family-broker", "parent-device", "child-device"] {
            #expect(first.text.contains("\(daemon) exited with status 0"), "\(first.text)")
        }
        for log in ["family-broker", "parent-device", "child-device"] {
            #expect(FileManager.default.fileExists(atPath: "\(state)/logs/\(log).log"))
        }
        #expect(
            !FileManager.default.fileExists(atPath: state + "/broker/broker.ready.json"),
            "the broker removed its ready file")

        let second = try Run(state: state)
        try await Self.eventually("all three daemons ready again", run: second) { await Self.allReady(state) }
        #expect(
            try ["alice-phone.pub", "emma-tablet.pub"].map {
                try String(contentsOfFile: state + "/keys/" + $0, encoding: .utf8)
            } == keys)
        #expect(
            try String(contentsOfFile: state + "/broker/broker.pub", encoding: .utf8) == brokerKey,
            "the broker kept its key")
        second.interrupt()
        #expect(await second.waitUntilExit(timeout: .seconds(20)))
        #expect(second.text.contains("stopped; state kept in \(state)"))
    }

    @Test func aSecondRunBesideTheFirstRefusesInOneLineAndLeavesItAlone() async throws {
        let state = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try Run(state: state)
        try await Self.eventually("all three daemons ready", run: first) {
            await Self.allReady(state) && first.text.contains("Ctrl-C stops all three.")
        }
        let ready = try String(contentsOfFile: state + "/broker/broker.ready.json", encoding: .utf8)

        let second = try Run(state: state)
        #expect(await second.waitUntilExit(timeout: .seconds(30)), "the second run exits by itself")
        #expect(await second.process.waitUntilExit() == 75)
        let lines = second.text.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(second.text)")
        #expect(second.text.contains("another run is using \(state)"), "\(second.text)")
        #expect(
            try String(contentsOfFile: state + "/broker/broker.ready.json", encoding: .utf8) == ready,
            "the first run's ready file is left alone")
        #expect(await Self.allReady(state), "and the first run goes on")

        first.interrupt()
        #expect(await first.waitUntilExit(timeout: .seconds(20)))
        for daemon in ["family-broker", "parent-device", "child-device"] {
            #expect(first.text.contains("\(daemon) exited with status 0"), "\(first.text)")
        }
    }
    /// The script in a copy of the tree whose `swift` only records how it was called, so a run's build step is seen
    /// without building: it builds the first time, not again while nothing under Sources/ or Package.swift changed,
    /// again when something did, and always with HEARTH_REBUILD=1.
    @Test func buildsOnlyWhenSourcesChanged() async throws {
        let tree = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tree) }
        let root = RepositoryRoot.url
        let files = FileManager.default
        for directory in ["deploy/local", "Sources/A", "tools", "bin", "state"] {
            try files.createDirectory(atPath: tree + "/" + directory, withIntermediateDirectories: true)
        }
        try files.copyItem(atPath: root.path + "/deploy/local/run", toPath: tree + "/deploy/local/run")
        let calls = tree + "/swift-calls"
        let scripts = [
            "deploy/setup": "#!/bin/sh\nexit 0\n",
            // The binaries' directory holds a family-broker; hearthctl is missing, so the run stops after its build.
            "tools/swift":
                "#!/bin/sh\necho \"$*\" >>\(calls)\ncase \"$*\" in *--show-bin-path*) echo \(tree)/bin;; esac\n",
            "bin/family-broker": "#!/bin/sh\nexit 1\n",
        ]
        for (path, text) in scripts {
            try text.write(toFile: tree + "/" + path, atomically: true, encoding: .utf8)
            try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tree + "/" + path)
        }
        try "// swift-tools-version:6.0\n".write(toFile: tree + "/Package.swift", atomically: true, encoding: .utf8)
        try "let a = 1\n".write(toFile: tree + "/Sources/A/a.swift", atomically: true, encoding: .utf8)
        let past = Date().addingTimeInterval(-3600)
        for path in ["Package.swift", "Sources/A/a.swift"] {
            try files.setAttributes([.modificationDate: past], ofItemAtPath: tree + "/" + path)
        }
        var called = ""
        func run(_ extra: [String: String] = [:]) async throws -> Bool {
            try? files.removeItem(atPath: calls)
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
            environment["PATH"] = tree + "/tools:" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["HEARTH_STATE"] = tree + "/state"
            _ = try await ExecutableRun.run(
                path: tree + "/deploy/local/run", [], environment: environment.merging(extra) { $1 })
            called = (try? String(contentsOfFile: calls, encoding: .utf8)) ?? ""
            return called.contains("build -c debug")
        }
        func builds(_ flags: String) -> [String] {
            ["family-broker", "parent-device", "child-device", "hearthctl"].map {
                "build -c debug \(flags)--product \($0)"
            }
        }
        #expect(try await run(), "the first run builds")
        // Only what it runs: the four products, one build each, and nothing else (not the test kit or the lab); the
        // SQLite broker without the PostgreSQL trait, as no build with it is here.
        #expect(
            called.split(separator: "\n").filter { $0.hasPrefix("build -c debug") }.map(String.init)
                == builds("--disable-default-traits "), "\(called)")
        #expect(files.fileExists(atPath: tree + "/.build/local-run.built"))
        #expect(try await run() == false, "nothing changed: no build")
        #expect(try await run(["HEARTH_REBUILD": "1"]), "HEARTH_REBUILD=1 builds")
        // Saved after the last build began, before the next one.
        try await Task.sleep(for: .milliseconds(100))
        try files.setAttributes([.modificationDate: Date()], ofItemAtPath: tree + "/Sources/A/a.swift")
        #expect(try await run(), "a changed source builds")
        #expect(try await run() == false)
        // A PostgreSQL store needs the trait: built with the default traits, though nothing changed.
        let postgres = ["HEARTH_BROKER_STORE": "postgres://hearth@127.0.0.1:5432/hearth"]
        #expect(try await run(postgres), "a PostgreSQL store builds the trait")
        #expect(called.split(separator: "\n").filter { $0.hasPrefix("build -c debug") }.map(String.init) == builds(""))
        #expect(try await run() == false, "a build with the default traits serves SQLite too")
        #expect(try await run(postgres) == false)
    }
}
