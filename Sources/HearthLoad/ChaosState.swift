import Foundation
import GRDB
import HearthCore
import HearthFleet

/// Reads the sequence numbers a chaos run ends with: each device's last applied one (its own SQLite file) and each
/// member's log at the broker (its SQLite file, or the cluster's PostgreSQL database), through read-only connections
/// while the daemons run; and what each parent still shows as pending.
enum ChaosState {
    static func read(_ fleet: Fleet, into verdict: inout ChaosVerdict) async throws {
        for device in ChaosRun.parentDevices {
            let console = try await fleet.parent(on: device)
            verdict.pendingAtParents[device] = try await console.pending().map(\.question.id)
            await console.close()
        }
        for (device, member) in fleet.owners {
            let path = fleet.directory + "/devices/\(device)/device.sqlite"
            let value = try readOnly(path) { db in
                try String.fetchOne(db, sql: "SELECT value FROM device_state WHERE key = 'last_applied'")
            }
            verdict.lastApplied[device] = (member, value.flatMap { UInt64($0) } ?? 0)
        }
        if let server = fleet.postgresServer {
            for row in try await server.query("SELECT member_id, COUNT(*), MAX(seq) FROM event GROUP BY member_id") {
                guard row.count == 3, let count = Int(row[1]), let head = UInt64(row[2]) else { continue }
                verdict.brokerLogs[row[0]] = (count, head)
            }
            return
        }
        let logs = try readOnly(fleet.directory + "/broker/broker.sqlite") { db in
            try Row.fetchAll(
                db, sql: "SELECT member_id, COUNT(*) AS n, MAX(seq) AS head FROM event_log GROUP BY member_id")
        }
        for row in logs {
            let member: String = row["member_id"]
            verdict.brokerLogs[member] = (row["n"], UInt64(row["head"] as Int64))
        }
    }

    private static func readOnly<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read(body)
    }
}
