import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads passcodes: from a terminal without echo (someone looking over a shoulder, a screen shared or recorded
/// sees nothing) and, for a new passcode, typed twice; from a pipe, one line, for scripts.
enum SecretInput {
    /// A new secret: on a terminal, typed twice without echo and refused unless both match; from a pipe, one line.
    static func readNew(_ prompt: String) throws -> String {
        let first = try read(prompt)
        guard isatty(STDIN_FILENO) == 1 else { return first }
        let second = try read("\(prompt) again")
        guard first == second else { throw CommandFailure("the two \(prompt.lowercased())s differ; nothing was set") }
        return first
    }

    /// One line from standard input, without echo when it is a terminal; the prompt goes to standard error.
    static func read(_ prompt: String) throws -> String {
        // The prompt after echo is off: what is typed as soon as it shows is never echoed, nor flushed away.
        let line = withoutEcho {
            FileHandle.standardError.write(Data("\(prompt): ".utf8))
            return readLine(strippingNewline: true)
        }
        guard let line, !line.isEmpty else { throw CommandFailure("no \(prompt.lowercased()) on standard input") }
        return line
    }

    /// Runs `body` with the terminal's echo off (when standard input is one), and restores it after, even when
    /// interrupted: SIGINT and SIGTERM restore it before the process ends.
    private static func withoutEcho<T>(_ body: () -> T) -> T {
        var saved = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return body() }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)  // the newline typed still ends the line on screen
        savedTerminal = saved
        signal(SIGINT, restoreAndExit)
        signal(SIGTERM, restoreAndExit)
        tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        return body()
    }
}

/// The terminal's settings before echo was turned off, for the signal handler (which can capture nothing).
nonisolated(unsafe) private var savedTerminal = termios()

private func restoreAndExit(_ signal: Int32) {
    tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    _exit(128 + signal)
}
