import Foundation

/// What a chaos run does: how long it asks, how many faults of each kind it injects, and its seed.
public struct ChaosOptions: Sendable {
    /// Picks the faults, their targets and their timing; the same seed gives the same schedule.
    public var seed: UInt64 = 1
    /// Kills (SIGKILL) of each kind of daemon (broker, child-device, parent-device) before the faults stop.
    public var killsPerDaemon = 3
    /// Pauses between two faults, in milliseconds.
    public var faultGap: ClosedRange<Int> = 300...1500
    /// How long a pause (SIGSTOP) or a cut-off lasts, in milliseconds.
    public var outage: ClosedRange<Int> = 200...3000
    /// Pauses between two questions asked by one app, in milliseconds.
    public var askGap: ClosedRange<Int> = 50...400
    /// How long the run waits, after the last fault, for every question to be answered and delivered.
    public var settleTimeout: Duration = .seconds(120)
    /// Brokers: 1 (SQLite, the default), or several of a cluster on one PostgreSQL server, any of which the run
    /// kills, pauses, restarts and cuts off (docs/SCALING.md).
    public var brokers = 1
    /// Prints each fault as it happens.
    public var verbose = true

    public init() {}
}
