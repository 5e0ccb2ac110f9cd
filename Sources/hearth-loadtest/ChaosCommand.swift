import ArgumentParser
import Foundation
import HearthLoad

/// `hearth-loadtest chaos`: asks and answers through real daemons while they are killed, paused, restarted and cut off.
struct ChaosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chaos",
        abstract: "Kill, pause, restart and cut off the daemons while questions flow; check that nothing is lost.",
        discussion: """
            Launches a fleet (family-broker, two child-device and two parent-device processes); apps on both child \
            devices ask through PermissionKit, both parents answer through parent-device. Faults at seeded random \
            moments until each kind of daemon was killed --kills times. Then checks, from the devices' and apps' \
            side, that every question was answered once, every response reached the app on every child device once, \
            nothing is left pending at a parent, and every device applied its member's log without a gap. Exits 1 on \
            any loss, duplicate or gap.
            """)

    @Option(help: "Seed for the schedule of faults (the same seed, the same faults in the same order).")
    var seed: UInt64 = 1
    @Option(help: "SIGKILLs of each kind of daemon (broker, child-device, parent-device).") var kills = 3
    @Option(help: "Longest pause between two faults, in milliseconds.") var maxGap = 1500
    @Option(help: "Longest pause or cut-off, in milliseconds.") var maxOutage = 3000
    @Option(help: "Seconds to wait for everything to be delivered after the last fault.") var settle = 120
    @Option(help: "Brokers: 1 on SQLite, or several of a cluster on a throwaway PostgreSQL server.") var brokers = 1
    @Flag(help: "Do not print each fault as it happens.") var quiet = false

    func run() async throws {
        var options = ChaosOptions()
        options.seed = seed
        options.killsPerDaemon = kills
        options.faultGap = min(300, maxGap)...maxGap
        options.outage = min(200, maxOutage)...maxOutage
        options.settleTimeout = .seconds(settle)
        options.verbose = !quiet
        guard brokers >= 1 else { throw ValidationError("--brokers must be 1 or more") }
        options.brokers = brokers
        let report = try await ChaosRun(options: options).run()
        print(report.text)
        if !report.passed { throw ExitCode(1) }
    }
}
