import Foundation
import HearthCore
import HearthFleet
import HearthService
import Testing

extension HearthctlWordsTests {
    /// hearthctl left running, its output (standard output and error) read while it runs, as from a pipe.
    final class Running: Sendable {
        let process: SpawnedProcess
        let output: String

        init(_ arguments: [String]) throws {
            output = FileManager.default.temporaryDirectory.path + "/hearthctl-\(UUID().uuidString.prefix(8)).out"
            let base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
            process = try SpawnedProcess.launch(
                try BinaryLocator.directory() + "/hearthctl", arguments: arguments, base: base, output: output,
                append: false)
        }

        var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        /// Waits up to `timeout` for `condition` on the output so far.
        func waitFor(_ timeout: Duration, _ condition: (String) -> Bool) async throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if condition(text) { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return condition(text)
        }

        func stop() async {
            if process.isRunning { kill(process.pid, SIGTERM) }
            _ = await process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: output)
        }
    }

    /// emma as the demo family has her (config/demo-family.yaml), with alice for a parent.
    static func demoFamily() throws -> FleetSpec {
        let root = RepositoryRoot.url
        let demo = try String(contentsOf: root.appendingPathComponent("config/demo-family.yaml"), encoding: .utf8)
        let emma = try #require(demo.range(of: "id: emma"))
        let line = try #require(demo[emma.upperBound...].split(separator: "\n").first { $0.contains("birthDate:") })
        let birthDate = line.split(separator: "\"").dropFirst().first.map(String.init) ?? ""
        return FleetSpec(families: [
            .init(
                "appleseed",
                members: [
                    .init("alice", role: .organizer, birthDate: "1985-01-01", devices: ["alice-phone"]),
                    .init("emma", role: .child, birthDate: birthDate, devices: ["emma-tablet"]),
                ])
        ])
    }

    /// `age request` under Ask First says at once that a prompt waits for the user and how to answer it, then
    /// prints the answer given from another terminal.
    @Test func anAgeRequestSaysAtOnceThatAPromptWaitsAndHow() async throws {
        try await Fleet.with(try Self.demoFamily(), brokerArguments: ["--age-prompt-timeout", "60"]) { fleet in
            let socket = fleet.socket(of: "emma-tablet")
            let request = try Running(["age", "request", "--gates", "13,16", "--socket", socket])
            defer { Task { await request.stop() } }
            let said = try await request.waitFor(.seconds(20)) { $0.contains("`hearthctl age answer") }
            #expect(said, "nothing said about the prompt: \(request.text)")
            #expect(request.text.contains("Waiting for the user to answer an age range prompt"), "\(request.text)")
            #expect(request.text.contains("`hearthctl age prompts --socket \(socket)`"), "\(request.text)")
            let answer = try #require(
                request.text.split(separator: "`").first { $0.hasPrefix("hearthctl age answer") }, "\(request.text)")
            let words = answer.split(separator: " ").map(String.init)
            let answered = try await hearthctl(Array(words.dropFirst()))
            #expect(answered.status == 0 && answered.output.contains("shared"), "\(answered)")
            #expect(await request.process.waitUntilExit() == 0)
            #expect(request.text.contains("sharing: "), "\(request.text)")
        }
    }

    /// docs/AGE-RANGE.md's example shares what hearthctl prints for the demo family's emma.
    @Test func theAgeRangeDocsExampleIsWhatTheDemosEmmaShares() async throws {
        try await Fleet.with(try Self.demoFamily()) { fleet in
            let always = try await hearthctl([
                "age", "sharing", "emma", "always", "--socket", fleet.socket(of: "alice-phone"),
            ])
            #expect(always.status == 0, "\(always)")
            let shared = try await hearthctl([
                "age", "request", "--gates", "13,16", "--app", "com.example.app", "--socket",
                fleet.socket(of: "emma-tablet"),
            ])
            let printed = shared.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(printed.hasPrefix("sharing: "), "\(shared)")
            let root = RepositoryRoot.url
            let doc = try String(contentsOf: root.appendingPathComponent("docs/AGE-RANGE.md"), encoding: .utf8)
            let example = try #require(
                doc.split(separator: "\n").first { $0.hasPrefix("hearthctl age request --gates 13,16 --app") })
            #expect(example.hasSuffix("# " + printed), "docs: \(example)\nhearthctl: \(printed)")
        }
    }

    /// `status --watch` into a pipe prints each refresh as it comes, not when the pipe's buffer fills (4 KiB: some
    /// 30 refreshes, 15 s at this interval).
    @Test func statusWatchPrintsIntoAPipe() async throws {
        let status = try Running([
            "status", "--watch", "--interval", "0.5", "--endpoint", "nothing=127.0.0.1:1",
        ])
        let printed = try await status.waitFor(.seconds(4)) { $0.contains("nothing") && $0.contains("down") }
        #expect(printed, "nothing printed: \(status.text)")
        #expect(!status.text.contains("\u{1B}[2J"), "a pipe is not a screen to clear")
        await status.stop()
    }

    /// A clean stop logs no sweep cut short by its cancellation as an error.
    @Test func theBrokersCleanStopLogsNoCancellation() async throws {
        try await Fleet.with(Self.family) { fleet in
            // Past a few sweeps (each second), so one is waiting or running when the stop comes.
            try await Task.sleep(for: .seconds(2.5))
            await fleet.currentBroker.stop()
            let log = try String(contentsOfFile: fleet.directory + "/logs/family-broker.log", encoding: .utf8)
            #expect(log.contains("family-broker stopped"), "the broker stopped cleanly")
            #expect(
                !log.contains("CancellationError"), "\(log.split(separator: "\n").suffix(20).joined(separator: "\n"))")
        }
    }
}
