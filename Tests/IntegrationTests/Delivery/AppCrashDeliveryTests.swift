import Foundation
import HearthCore
import HearthFleet
import HearthService
import PermissionKit
import Testing

/// An app is a process of its own (`hearthctl app watch`, through PermissionKit): a response it was handling when it
/// was killed comes again when it restarts, and one it handled does not.
@Suite("App crash delivery", .serialized, .tags(.fleet))
struct AppCrashDeliveryTests {
    static let app = "com.example.crashy"

    /// A running app process and the file its output goes to.
    struct AppProcess {
        let process: SpawnedProcess
        let log: String

        var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// How many times the app printed the response to `question`.
        func responses(to question: UUID) -> Int {
            let lines = output.components(separatedBy: "\n")
            return lines.filter { $0.hasPrefix("response:") && $0.contains("\(question)") }.count
        }
    }

    static func watch(in fleet: Fleet, _ arguments: [String], name: String) throws -> AppProcess {
        let log = fleet.directory + "/logs/app-\(name).log"
        try Data().write(to: URL(fileURLWithPath: log))
        let socket = fleet.socket(of: "emma-tablet")
        let process = try SpawnedProcess.launch(
            try BinaryLocator.directory() + "/hearthctl",
            arguments: ["app", "watch", "--bundle-id", app, "--socket", socket] + arguments,
            base: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }, output: log)
        return AppProcess(process: process, log: log)
    }

    /// Asks a question as the app (in this process, which then closes) and has alice approve it, with `message`.
    static func askAndApprove(_ handle: String, in fleet: Fleet, message: String? = nil) async throws -> UUID {
        let question = PermissionQuestion(handle: CommunicationHandle(value: handle, kind: .custom))
        let asking = fleet.app(app, on: "emma-tablet")
        try await asking.ask(question)
        await asking.close()
        let alice = try await fleet.parent(on: "alice-phone")
        _ = try await alice.waitForQuestion(question.id)
        _ = try await alice.approve(question.id, message: message)
        await alice.close()
        return question.id
    }

    /// Entries waiting in emma-tablet's inbox.
    static func inbox(_ fleet: Fleet) throws -> Int { try LocalSocketTests.inboxCount(in: fleet) }

    static func waitForExit(_ app: AppProcess, in fleet: Fleet) async throws {
        try await fleet.eventually("the app exits") { !app.process.isRunning }
        #expect(app.process.status == 0, "\(app.output)")
    }

    @Test func aResponseTheAppWasHandlingWhenKilledComesAgainAndAHandledOneDoesNot() async throws {
        try await Fleet.with(LocalSocketTests.spec) { fleet in
            let first = try await Self.askAndApprove("pal1", in: fleet)
            try await fleet.eventually("the response waits in the inbox") { try Self.inbox(fleet) == 1 }

            // The app takes the response and is killed while it handles it (a slow handler, then SIGKILL).
            let crashing = try Self.watch(in: fleet, ["--handle-seconds", "600"], name: "crashing")
            try await fleet.eventually("the app holds the response") { crashing.responses(to: first) == 1 }
            // Give a wrong early acknowledgement time to land before the kill.
            try await Task.sleep(for: .milliseconds(300))
            kill(crashing.process.pid, SIGKILL)
            #expect(await crashing.process.waitUntilExit() == SIGKILL)
            #expect(try Self.inbox(fleet) == 1, "the response was acknowledged before it was handled")

            // Restarted, the app gets it again, handles it and acknowledges it.
            let restarted = try Self.watch(in: fleet, ["--count", "1"], name: "restarted")
            try await Self.waitForExit(restarted, in: fleet)
            #expect(restarted.responses(to: first) == 1)
            try await fleet.eventually("the handled response left the inbox") { try Self.inbox(fleet) == 0 }

            // Exactly once: the next run sees only a new response, not the handled one. The daemon pushes an app's
            // inbox oldest first, so the old one, had it stayed, would come before the new one.
            let second = try await Self.askAndApprove("pal2", in: fleet)
            let again = try Self.watch(in: fleet, ["--count", "1"], name: "again")
            try await Self.waitForExit(again, in: fleet)
            #expect(again.responses(to: second) == 1)
            #expect(again.responses(to: first) == 0)
            try await fleet.eventually("the inbox is empty") { try Self.inbox(fleet) == 0 }
        }
    }

    @Test func anAppThatIsNotKilledGetsEachResponseOnce() async throws {
        try await Fleet.with(LocalSocketTests.spec) { fleet in
            // A running app handles responses one after the other: each is acknowledged when it takes the next.
            let running = try Self.watch(in: fleet, ["--count", "3"], name: "running")
            var questions: [UUID] = []
            for n in 1...3 { questions.append(try await Self.askAndApprove("pal\(n)", in: fleet)) }
            try await Self.waitForExit(running, in: fleet)
            #expect(questions.map { running.responses(to: $0) } == [1, 1, 1])
            try await fleet.eventually("every response left the inbox") { try Self.inbox(fleet) == 0 }

            let fourth = try await Self.askAndApprove("pal4", in: fleet, message: "ok, but \"nice\" only\nplease")
            let next = try Self.watch(in: fleet, ["--count", "1"], name: "next")
            try await Self.waitForExit(next, in: fleet)
            #expect(next.responses(to: fourth) == 1)
            #expect(next.output.contains(#", message "ok, but \"nice\" only\nplease""#), "\(next.output)")
            #expect(questions.map { next.responses(to: $0) } == [0, 0, 0])
        }
    }
}
