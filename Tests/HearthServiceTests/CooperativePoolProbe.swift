import Foundation
import HearthService
import Synchronization
import Testing

/// A measurement, not a check: with `HEARTH_POOL_PROBE=<seconds>` it runs that long beside the rest of the suite,
/// a task on the cooperative pool sleeping 10 ms at a time, and logs to `HEARTH_POOL_PROBE_LOG` (or stderr) each
/// wake-up more than 200 ms late: the pool had no thread free for that long. A plain thread sleeping the same way is
/// the control (a loaded machine delays both). With `HEARTH_POOL_PROBE_STACKS=<dir>`, a stall past 300 ms has gdb
/// write every thread's stack there (at most 15, 10 s apart), to see what holds the pool's threads.
@Suite struct CooperativePoolProbe {
    static let environment = ProcessInfo.processInfo.environment

    @Test(.enabled(if: environment["HEARTH_POOL_PROBE"] != nil))
    func poolWakeUps() async throws {
        let seconds = Double(Self.environment["HEARTH_POOL_PROBE"] ?? "") ?? 300
        let probe = Probe(
            log: Self.environment["HEARTH_POOL_PROBE_LOG"], stacks: Self.environment["HEARTH_POOL_PROBE_STACKS"])
        probe.startControl()
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            let asleep = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(10))
            probe.woke(late: ContinuousClock.now - asleep - .milliseconds(10))
        }
        probe.finish()
    }

    /// The probe's state and its log; the control thread that also dumps stacks.
    final class Probe: Sendable {
        struct State {
            var lastTick = ContinuousClock.now
            var controlWorst = Duration.zero
            var lates: [Duration] = []
            var ticks = 0
            var dumps = 0
            var lastDump: ContinuousClock.Instant?
            var stalledSince: ContinuousClock.Instant?
            var running = true
        }

        let state = Mutex(State())
        let start = ContinuousClock.now
        let log: String?
        let stacks: String?

        init(log: String?, stacks: String?) {
            self.log = log
            self.stacks = stacks
            write("start load=\(Self.loadAverage())")
        }

        func write(_ line: String) {
            let text = String(format: "%8.3f ", Self.seconds(ContinuousClock.now - start)) + line + "\n"
            if let log, let handle = FileHandle(forWritingAtPath: log) ?? Self.create(log) {
                handle.seekToEndOfFile()
                handle.write(Data(text.utf8))
                try? handle.close()
            } else {
                FileHandle.standardError.write(Data(text.utf8))
            }
        }

        static func create(_ path: String) -> FileHandle? {
            // No file, no handle: `write` then falls back to standard error.
            guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
            return FileHandle(forWritingAtPath: path)
        }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        static func loadAverage() -> String {
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
                .joined(separator: " ") ?? "?"
        }

        func woke(late: Duration) {
            let control = state.withLock { state in
                state.ticks += 1
                state.lastTick = .now
                state.stalledSince = nil
                defer { state.controlWorst = .zero }
                if late > .milliseconds(200) { state.lates.append(late) }
                return state.controlWorst
            }
            if late > .milliseconds(200) {
                write(
                    String(
                        format: "late %.0f ms (control thread %.0f ms)", Self.seconds(late) * 1000,
                        Self.seconds(control) * 1000))
            }
        }

        func finish() {
            let summary = state.withLock { state in
                state.running = false
                let sorted = state.lates.sorted()
                return String(
                    format: "end ticks=%d late>200ms=%d >1s=%d worst=%.0f ms load=%@", state.ticks, sorted.count,
                    sorted.filter { $0 > .seconds(1) }.count, Self.seconds(sorted.last ?? .zero) * 1000,
                    Self.loadAverage())
            }
            write(summary)
        }

        /// The control thread: sleeps 10 ms at a time, keeps its worst lateness, and dumps stacks on a long stall.
        func startControl() {
            Thread.detachNewThread { [self] in
                while state.withLock({ $0.running }) {
                    let asleep = ContinuousClock.now
                    usleep(10_000)
                    let late = ContinuousClock.now - asleep - .milliseconds(10)
                    let dump = state.withLock { state -> Bool in
                        state.controlWorst = max(state.controlWorst, late)
                        let now = ContinuousClock.now
                        guard stacks != nil, now - state.lastTick > .milliseconds(300), state.stalledSince == nil,
                            state.dumps < 15, state.lastDump.map({ now - $0 > .seconds(10) }) ?? true
                        else { return false }
                        state.stalledSince = now
                        state.dumps += 1
                        state.lastDump = now
                        return true
                    }
                    if dump { dumpStacks() }
                }
            }
        }

        func dumpStacks() {
            guard let stacks else { return }
            let number = state.withLock { $0.dumps }
            let path = "\(stacks)/stall-\(number).txt"
            write("stacks → \(path)")
            _ = try? SpawnedProcess.launch(
                "/usr/bin/gdb",
                arguments: ["-batch", "-p", "\(getpid())", "-ex", "thread apply all bt 40"], output: path)
        }
    }
}
