public import GRDB
public import HearthCore
public import HearthProtocol

/// What makes a device a child's or a parent's: how it applies events and its local socket's commands. Its tables
/// are its own store's (`ChildStore`, `ParentStore`); it sees the daemon only through a narrow `DeviceContext`.
public protocol DeviceBehavior: Sendable {
    /// The daemon's name in logs and errors, e.g. `child-device`.
    var name: String { get }
    /// Applies one event inside the transaction that also records it as applied, so it is applied exactly once.
    func apply(_ event: Event, in db: Database) throws
    /// Called after events committed, e.g. to push responses to connected apps.
    func applied(_ events: [Event], context: any DeviceContext) async
    /// Answers one request from the local socket; nil sends no reply.
    func handleLocal(_ envelope: Envelope, from routingID: [UInt8], context: any DeviceContext) async -> Message?
    /// Called each time the link to the broker comes up and the device has caught up.
    func linked(context: any DeviceContext) async
    /// Runs beside the daemon from its start until its shutdown, when it is cancelled (e.g. parent-device's page).
    func serve(context: any DeviceContext) async
}

extension DeviceBehavior {
    /// Nothing runs beside the daemon.
    public func serve(context: any DeviceContext) async {}
}
