import Foundation
import GRDB
import GRDBSQLite

/// One of `WriterStatements`' statements during one call: binds parameters (numbered from 1) and reads columns
/// (numbered from 0) with SQLite's own functions, values copied in and out.
struct PreparedQuery {
    let statement: OpaquePointer
    let connection: OpaquePointer
    let sql: String

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(statement, index, value) }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { bind(index, value) } else { sqlite3_bind_null(statement, index) }
    }

    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // An empty buffer's address may be nil, which SQLite would bind as NULL.
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                sqlite3_bind_text(statement, index, "", 0, Self.transient)
                return
            }
            sqlite3_bind_text(statement, index, base, Int32(utf8.count), Self.transient)
        }
    }

    func bind(_ index: Int32, _ value: Data?) {
        guard let value else {
            sqlite3_bind_null(statement, index)
            return
        }
        value.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                sqlite3_bind_zeroblob(statement, index, 0)
                return
            }
            sqlite3_bind_blob(statement, index, base, Int32(bytes.count), Self.transient)
        }
    }

    func bind(_ index: Int32, bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                sqlite3_bind_zeroblob(statement, index, 0)
                return
            }
            sqlite3_bind_blob(statement, index, base, Int32(bytes.count), Self.transient)
        }
    }

    /// Runs the statement to its next row: true on a row, false once done.
    func step() throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(connection)),
                message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }

    /// The current row's column as bytes; nil when NULL.
    func data(_ column: Int32) -> Data? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        // The blob first, then its size: SQLite's documented order.
        let base = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let base else { return Data() }
        return Data(bytes: base, count: count)
    }

    /// The current row's column as bytes, copied once; nil when NULL.
    func bytes(_ column: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        let base = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let base else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The current row's column as an integer (0 when NULL).
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    /// Rows changed by the statement's last run.
    var changes: Int { Int(sqlite3_changes(connection)) }
}
