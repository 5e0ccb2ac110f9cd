import Foundation
import HearthCore
import HearthFleet
import Testing

/// `hearthctl parent passcode` on a real terminal (a pseudo-terminal driven by python3's pty module): the
/// passcode is never echoed, and it is typed twice.
@Suite("Passcode prompt on a terminal", .serialized, .tags(.fleet))
struct PasscodePromptTests {
    /// Runs hearthctl `arguments` on a new pseudo-terminal, answering each prompt in turn with the next of
    /// `typed`; returns everything the terminal showed and the exit status.
    static func onTerminal(
        _ arguments: [String], typing typed: [String]
    ) async throws -> (status: Int32, output: String) {
        let script = """
            import os, pty, select, sys, time
            typed = sys.argv[1].split(",")
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[2], sys.argv[2:])
            shown = b""
            def read_until(token, seconds):
                global shown
                end = time.time() + seconds
                while (token is None or token not in shown) and time.time() < end:
                    ready, _, _ = select.select([fd], [], [], 0.1)
                    if ready:
                        try:
                            data = os.read(fd, 4096)
                        except OSError:
                            return
                        if not data:
                            return
                        shown += data
            prompts = [b"Passcode: ", b"Passcode again: "]
            for index, text in enumerate(typed):
                read_until(prompts[index], 10)
                os.write(fd, text.encode() + b"\\n")
            read_until(None, 20)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == 0:
                os.kill(pid, 9)
                _, status = os.waitpid(pid, 0)
            sys.stdout.write(shown.decode(errors="replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let hearthctl = try BinaryLocator.directory() + "/hearthctl"
        return try await ExecutableRun.run(
            path: "/usr/bin/python3", ["-c", script, typed.joined(separator: ","), hearthctl] + arguments,
            timeout: .seconds(60))
    }

    @Test func thePasscodeIsNotEchoedAndIsTypedTwice() async throws {
        let spec = FleetSpec(families: [
            .init(
                "appleseed",
                members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])])
        ])
        try await Fleet.with(spec) { fleet in
            let arguments = ["parent", "passcode", "emma", "--socket", fleet.socket(of: "alice-phone")]
            let set = try await Self.onTerminal(arguments, typing: ["975310", "975310"])
            #expect(set.status == 0, "\(set.output)")
            #expect(set.output.contains("Passcode again: ") && set.output.contains("Passcode set for emma."), "\(set)")
            #expect(!set.output.contains("975310"), "the passcode was echoed: \(set.output)")

            let differ = try await Self.onTerminal(arguments, typing: ["246813", "246831"])
            #expect(differ.status != 0 && differ.output.contains("differ"), "\(differ.output)")
            #expect(!differ.output.contains("246813") && !differ.output.contains("246831"), "\(differ.output)")
            // The first passcode still holds: the mismatch set nothing.
            let history = try await hearthctl([
                "parent", "history", "emma", "--socket", fleet.socket(of: "alice-phone"),
            ])
            #expect(history.output.components(separatedBy: "Screen Time passcode").count == 2, "\(history.output)")
        }
    }
}
