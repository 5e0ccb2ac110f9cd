import Foundation
public import HearthCore
import HearthTransport

/// A parent app's entry point: what a parent should be told at once (a new question, an answer by a co-parent or in
/// person, an expiry), from the parent-device daemon over its local socket.
public final class ParentNotifications: Sendable {
    /// The instance for this process: the daemon at `LocalEndpoints.parentDeviceSocket`.
    public static let current = ParentNotifications(socketPath: LocalEndpoints.parentDeviceSocket)

    /// The parent-device daemon's socket path.
    public let socketPath: String
    let connection: ParentDeviceConnection

    /// An instance talking to the daemon at `socketPath`. Nothing connects until an iteration of `updates` starts.
    public init(socketPath: String, timeout: Duration = .seconds(5)) {
        self.socketPath = socketPath
        connection = ParentDeviceConnection(socketPath: socketPath, timeout: timeout)
    }

    /// Notifications as they reach this parent's device, from the moment the iteration starts.
    ///
    /// Each iteration is a subscription of its own and gets every notification recorded while it runs, once each,
    /// in order; it survives a restart of the daemon (it resumes after the last notification it yielded). Iterations
    /// end after `close()`.
    public var updates: some AsyncSequence<ParentNotification, Never> & Sendable {
        ParentNotificationUpdates(connection: connection, after: nil)
    }

    /// Notifications numbered above `after` (an `id` the app handled before; 0: the oldest the daemon still sends,
    /// at most its last 256), then new ones as they come: how an app resumes where it left off.
    public func updates(after: UInt64) -> some AsyncSequence<ParentNotification, Never> & Sendable {
        ParentNotificationUpdates(connection: connection, after: after)
    }

    /// Ends live iterations of `updates` and releases the connection; a later iteration connects again.
    public func close() async {
        await connection.close()
    }
}
