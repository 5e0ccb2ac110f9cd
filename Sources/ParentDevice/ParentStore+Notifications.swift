import Foundation
import GRDB
public import HearthCore
public import HearthProtocol

extension ParentStore {
    /// Records what a parent is told of `event`, in the transaction that applies it, so each is recorded once;
    /// returns its number, or nil when there is nothing new to tell.
    @discardableResult
    static func record(_ event: Event, in db: Database) throws -> UInt64? {
        guard let notification = ParentNotification(id: 0, event: event) else { return nil }
        var w = WireWriter()
        w.parentNotification(notification)
        try db.execute(
            sql: "INSERT OR IGNORE INTO notification (question_id, kind, body) VALUES (?, ?, ?)",
            arguments: [notification.questionID?.wireBytes, notification.kind.rawValue, Data(w.bytes)])
        return db.changesCount > 0 ? UInt64(db.lastInsertedRowID) : nil
    }

    /// The notifications numbered above `after`, oldest first, at most `limit`.
    public func notifications(
        after: UInt64, limit: Int = Wire.maxNotificationBacklog
    ) async throws
        -> [ParentNotification]
    {
        try await database.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, body FROM notification WHERE id > ? ORDER BY id LIMIT ?",
                arguments: [Int64(clamping: after), limit])
            return try rows.map(Self.notification)
        }
    }

    /// The newest notification's number; 0 when there is none.
    public func notificationHead() async throws -> UInt64 {
        try await database.read { db in
            UInt64(try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM notification") ?? 0)
        }
    }

    /// The notifications not yet shown on the desktop, oldest first, marked as shown in the same transaction: each
    /// is shown at most once on this device, across restarts.
    func takeUnshownOnDesktop() async throws -> [ParentNotification] {
        try await database.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, body FROM notification WHERE desktop_shown = 0 ORDER BY id")
            try db.execute(sql: "UPDATE notification SET desktop_shown = 1 WHERE desktop_shown = 0")
            return try rows.map(Self.notification)
        }
    }

    private static func notification(_ row: Row) throws -> ParentNotification {
        let data: Data = row["body"]
        var r = WireReader(Array(data))
        var notification = try r.parentNotification()
        notification.id = UInt64(row["id"] as Int64)
        return notification
    }
}
