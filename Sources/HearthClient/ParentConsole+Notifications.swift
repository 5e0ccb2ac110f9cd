import Foundation
public import HearthCore
import HearthProtocol
import HearthTransport

extension ParentConsole {
    /// parent-device's last notifications (at most 256), oldest first: a watch from 0 has the daemon push them
    /// before its reply names the newest. On a connection of its own, closed after.
    public static func recentNotifications(
        socketPath: String, timeout: Duration = .seconds(5)
    ) async throws
        -> [ParentNotification]
    {
        let client = try LocalClient(endpoint: LocalEndpoints.ipc(socketPath), peer: "parent-device")
        try await client.start()
        defer { Task { await client.close() } }
        let reply = try await client.request(.parentWatch(after: 0), timeout: timeout)
        guard case .parentWatching(let head) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        guard head > 0 else { return [] }
        let collected = Task {
            var list: [ParentNotification] = []
            for await envelope in client.pushes {
                guard case .parentNotification(let notification) = envelope.message else { continue }
                list.append(notification)
                if notification.id >= head { break }
            }
            return list
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            collected.cancel()
        }
        defer { timer.cancel() }
        return await collected.value
    }
}
