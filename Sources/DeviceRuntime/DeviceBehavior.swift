import GRDB
import HearthCore
import HearthProtocol

/// What makes a device a child's or a parent's: its tables, how it applies events, and its local socket's commands.
public protocol DeviceBehavior: Sendable {
    /// The daemon's name in logs and errors, e.g. `child-device`.
    var name: String { get }
    /// Adds the behaviour's tables.
    func migrate(_ migrator: inout DatabaseMigrator)
    /// Applies one event inside the transaction that also records it as applied, so it is applied exactly once.
    func apply(_ event: Event, in db: Database) throws
    /// Called after events committed, e.g. to push responses to connected apps.
    func applied(_ events: [Event], runtime: DeviceRuntime) async
    /// Answers one request from the local socket; nil sends no reply.
    func handleLocal(_ envelope: Envelope, from routingID: [UInt8], runtime: DeviceRuntime) async -> Message?
    /// Called each time the link to the broker comes up and the device has caught up.
    func linked(runtime: DeviceRuntime) async
}
