import BrokerCore
import Foundation
import GRDB

extension BrokerStore {
    /// Below this much free space on the database's file system, a probe does not call the store writable again: a
    /// probe's one page may fit in log space SQLite already holds while a batch of commands would not.
    static let probeMinimumFreeBytes: UInt64 = 1 << 20

    /// `error` as the engine should see it: a write the disk refused (SQLITE_FULL: no space left; SQLITE_IOERR: an
    /// I/O error; SQLITE_CANTOPEN: a file it could not create) is `StoreUnavailable`, as a lost PostgreSQL server
    /// is. SQLite has then rolled the transaction back (or GRDB did): nothing of it is stored.
    static func classify(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        switch error.resultCode {
        case .SQLITE_FULL:
            return StoreUnavailable(description: "the disk holding the broker's database is full (SQLITE_FULL)")
        case .SQLITE_IOERR, .SQLITE_CANTOPEN:
            return StoreUnavailable(
                description: "the broker's database could not be written (\(error.extendedResultCode)): "
                    + (error.message ?? "no message"))
        default:
            return error
        }
    }

    /// Runs a write; a refusal of the disk is recorded (`writeProblem`) and rethrown as `StoreUnavailable`.
    func recordingDiskFailures<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            let classified = Self.classify(error)
            if let unavailable = classified as? StoreUnavailable { writeHealth.failed(unavailable) }
            throw classified
        }
    }

    /// Why the last commit failed for want of a disk, until `probeWrite` succeeds; nil while writes succeed.
    public var writeProblem: String? { writeHealth.problem?.description }

    /// After a failed commit: whether the disk takes a write again. Commits one page (the database header's user
    /// version, rewritten unchanged: the schema's version is GRDB's migration table, not this field) through the
    /// writer, with its sync, and asks for `probeMinimumFreeBytes` free. Returns nil once it does (and forgets the
    /// failure), else why not.
    @discardableResult
    public func probeWrite() async -> String? {
        guard let failure = writeHealth.problem else { return nil }
        let directory = (pool.path as NSString).deletingLastPathComponent
        if let free = Self.freeBytes(directory), free < Self.probeMinimumFreeBytes {
            return "\(failure); \(free) bytes free"
        }
        do {
            try await pool.write { db in
                let version = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                try db.execute(sql: "PRAGMA user_version = \(version)")
            }
        } catch {
            return "\(failure); a probe write failed too: \(Self.classify(error))"
        }
        writeHealth.recovered()
        return nil
    }

    /// Bytes an unprivileged writer may still use on the file system holding `path`; nil if it cannot be asked.
    static func freeBytes(_ path: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }
}
