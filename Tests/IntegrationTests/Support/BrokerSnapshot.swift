import Foundation
import GRDB
import HearthFleet

/// Every row of every table of a running broker's SQLite file, read through a read-only connection: two snapshots are
/// equal exactly when nothing was stored in between.
struct BrokerSnapshot: Equatable, CustomStringConvertible {
    /// Rows by table, each row as its SQL literals (`quote()`: blobs as X'…'), sorted.
    var tables: [String: [String]]

    init(_ fleet: Fleet) throws {
        try self.init(path: fleet.directory + "/broker/broker.sqlite")
    }

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        tables = try queue.read { db in
            var tables: [String: [String]] = [:]
            let names = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            for name in names {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [name])
                let row = columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
                tables[name] = try String.fetchAll(db, sql: "SELECT \(row) FROM \"\(name)\"").sorted()
            }
            return tables
        }
    }

    /// Row counts by table, for messages.
    var description: String {
        tables.keys.sorted().map { "\($0): \(tables[$0]!.count)" }.joined(separator: ", ")
    }

    /// Every stored value as text, to search for what must never be stored.
    var allText: String {
        tables.values.flatMap { $0 }.joined(separator: "\n")
    }
}
