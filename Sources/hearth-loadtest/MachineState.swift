import Foundation

/// What makes a run's figures comparable or not: the build (a debug build is several times slower, and not comparable
/// with a release one) and the machine's load average at the start and the end of the run against its core count.
struct MachineState: Codable {
    /// `debug` or `release`: this `hearth-loadtest`'s build, which is the broker's when it launched one from the same
    /// build folder.
    var build: String
    var cores: Int
    /// `/proc/loadavg`'s 1-minute figure when the command started and when it ended.
    var loadAverageAtStart: Double?
    var loadAverageAtEnd: Double?

    /// The build and the load now, as a run starts.
    static func atStart() -> MachineState {
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        return MachineState(
            build: build, cores: ProcessInfo.processInfo.activeProcessorCount, loadAverageAtStart: loadAverage(),
            loadAverageAtEnd: nil)
    }

    /// The 1-minute load average, nil where there is no `/proc/loadavg`.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    var isDebug: Bool { build == "debug" }

    /// Other work was competing for the cores. Before the run, anything over half the cores is someone else's; at its
    /// end, the run itself accounts for up to about one core per process under load, so only a load over the core
    /// count says that something else ran too.
    var isLoaded: Bool {
        (loadAverageAtStart.map { $0 > Double(cores) / 2 } ?? false)
            || (loadAverageAtEnd.map { $0 > Double(cores) } ?? false)
    }

    /// The warnings to print above the figures; empty when they stand.
    var warnings: [String] {
        var lines: [String] = []
        if isDebug {
            lines.append(
                "DEBUG BUILD: these figures are not comparable with release builds or with docs/PERFORMANCE.md "
                    + "(swift build -c release).")
        }
        if isLoaded {
            let start = loadAverageAtStart.map { String(format: "%.2f at the start", $0) } ?? "unknown at the start"
            let end = loadAverageAtEnd.map { String(format: " and %.2f at the end", $0) } ?? ""
            lines.append(
                "LOADED MACHINE: load average \(start)\(end) on \(cores) cores: other work shared the cores, and the "
                    + "figures are lower than this build can do.")
        }
        return lines
    }
}
