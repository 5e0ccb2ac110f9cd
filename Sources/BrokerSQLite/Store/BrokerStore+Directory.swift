import BrokerCore
import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// The directory as stored (`Stored.Family`), child settings, contacts and passcodes.
extension BrokerStore {
    typealias FamilyRow = Stored.Family

    static func familyRows(in db: Database) throws -> [FamilyID: FamilyRow] {
        var rows: [FamilyID: FamilyRow] = [:]
        let cursor = try Row.fetchCursor(db, sql: "SELECT id, entry, source_hash FROM family_entry ORDER BY id")
        let decoder = JSONDecoder()
        while let row = try cursor.next() {
            let data: Data = row[1]
            rows[row[0]] = FamilyRow(family: try decoder.decode(FamilyFile.Family.self, from: data), sourceHash: row[2])
        }
        return rows
    }

    /// Each stored row's source hash (nil for a row that is only the broker's), without decoding the entries.
    static func sourceHashes(in db: Database) throws -> [FamilyID: String?] {
        var hashes: [FamilyID: String?] = [:]
        let cursor = try Row.fetchCursor(db, sql: "SELECT id, source_hash FROM family_entry")
        while let row = try cursor.next() { hashes[row[0]] = .some(row[1]) }
        return hashes
    }

    /// Whether the stored rows are `file`'s families as last applied and nothing else: each row's entry is the file's
    /// entry as `entryEncoder()` encodes it, byte for byte, and its source hash is that entry's hash. False when an
    /// admin edited a row, a revoked key was left out, or the file changed. `file` has unique family ids (validated).
    static func holdsExactly(_ file: FamilyFile, in db: Database) throws -> Bool {
        let fileRows = Stored.Family.rows(of: file)
        var index: [FamilyID: Int] = Dictionary(minimumCapacity: fileRows.count)
        for (i, row) in fileRows.enumerated() { index[row.id] = i }
        let encoder = Stored.Family.entryEncoder()
        var matched = 0
        let cursor = try Row.fetchCursor(db, sql: "SELECT id, entry, source_hash FROM family_entry")
        while let row = try cursor.next() {
            guard let i = index[row[0]] else { return false }
            let entry = try encoder.encode(fileRows[i].family)
            let stored: Data = row[1]
            let hash: String? = row[2]
            guard stored == entry, hash == Stored.Family.hash(of: entry) else { return false }
            matched += 1
        }
        return matched == fileRows.count
    }

    /// The stored directory as a family file (nil when nothing was ever stored).
    static func storedFile(in db: Database) throws -> FamilyFile? {
        let rows = try familyRows(in: db)
        guard !rows.isEmpty else { return nil }
        return Stored.Family.file(from: rows.mapValues(\.family))
    }

    /// Stores a family's row; `entry` is the family as `Stored.Family.entryEncoder()` encodes it.
    static func saveFamily(entry: Data, id: FamilyID, sourceHash: String?, in db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO family_entry (id, entry, source_hash) VALUES (?, ?, ?)")
        try statement.execute(arguments: [id, entry, sourceHash])
    }

    static func deleteFamily(_ id: FamilyID, in db: Database) throws {
        try db.execute(sql: "DELETE FROM family_entry WHERE id = ?", arguments: [id])
    }

    // MARK: revoked keys

    static func revokedKeys(in db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT public_key FROM revoked_key"))
    }

    static func revokeKey(_ key: String, device: DeviceID, member: MemberID, at date: Date, in db: Database) throws {
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO revoked_key (public_key, device_id, member_id, revoked_at) VALUES (?, ?, ?, ?)",
            arguments: [key, device, member, Stored.milliseconds(date)])
    }

    static func unrevokeKey(_ key: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM revoked_key WHERE public_key = ?", arguments: [key])
    }

    // MARK: settings and contacts

    static func settings(of child: MemberID, in db: Database) throws -> CommunicationSettings? {
        let statement = try db.cachedStatement(sql: WriterStatements.Query.settings.sql)
        guard let data = try Data.fetchOne(statement, arguments: [child]) else {
            return nil
        }
        return try DecodedSettingsCache.shared.settings(from: data)
    }

    static func saveSettings(_ settings: CommunicationSettings, of child: MemberID, in db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO child_settings (member_id, settings) VALUES (?, ?)")
        try statement.execute(arguments: [child, try JSONEncoder().encode(settings)])
    }

    static func contacts(of child: MemberID, in db: Database) throws -> [Contact] {
        try Row.fetchAll(
            db, sql: "SELECT kind, value, downtime FROM contact WHERE child_id = ? ORDER BY kind, value",
            arguments: [child]
        ).compactMap { row in
            CommunicationHandle.Kind(rawValue: row[0]).map {
                Contact(handle: CommunicationHandle(value: row[1], kind: $0), allowedDuringDowntime: row[2])
            }
        }
    }

    /// Which of `handles` are the child's contacts, each with whether it is allowed during downtime.
    static func contactFlags(
        of child: MemberID, among handles: [CommunicationHandle], in db: Database
    ) throws -> [CommunicationHandle: Bool] {
        let statement = try db.cachedStatement(sql: WriterStatements.Query.contactDowntime.sql)
        var flags: [CommunicationHandle: Bool] = [:]
        for handle in handles where flags[handle] == nil {
            if let downtime = try Bool.fetchOne(statement, arguments: [child, handle.kind.rawValue, handle.value]) {
                flags[handle] = downtime
            }
        }
        return flags
    }

    /// Adds or updates contacts; returns the handles that were not contacts before.
    static func upsertContacts(
        _ contacts: [Contact], of child: MemberID, in db: Database
    ) throws -> [CommunicationHandle] {
        var added: [CommunicationHandle] = []
        for contact in contacts {
            let exists =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM contact WHERE child_id = ? AND kind = ? AND value = ?",
                    arguments: [child, contact.handle.kind.rawValue, contact.handle.value]) ?? false
            try db.execute(
                sql: "INSERT OR REPLACE INTO contact (child_id, kind, value, downtime) VALUES (?, ?, ?, ?)",
                arguments: [child, contact.handle.kind.rawValue, contact.handle.value, contact.allowedDuringDowntime])
            if !exists { added.append(contact.handle) }
        }
        return added
    }

    /// Removes contacts; returns those that were contacts.
    static func removeContacts(
        _ handles: [CommunicationHandle], of child: MemberID, in db: Database
    ) throws -> [CommunicationHandle] {
        var removed: [CommunicationHandle] = []
        for handle in Set(handles) {
            try db.execute(
                sql: "DELETE FROM contact WHERE child_id = ? AND kind = ? AND value = ?",
                arguments: [child, handle.kind.rawValue, handle.value])
            if db.changesCount > 0 { removed.append(handle) }
        }
        return removed
    }

    // MARK: passcode

    typealias PasscodeRow = Stored.Passcode

    static func passcode(of child: MemberID, in db: Database) throws -> PasscodeRow? {
        try Row.fetchOne(
            db, sql: "SELECT hash, failures, locked_until FROM passcode WHERE member_id = ?", arguments: [child]
        ).map { row in
            PasscodeRow(
                hash: row[0], failures: row[1], lockedUntil: Date(timeIntervalSince1970: Double(row[2] as Int64) / 1000)
            )
        }
    }

    static func savePasscode(_ row: PasscodeRow?, of child: MemberID, in db: Database) throws {
        guard let row else {
            try db.execute(sql: "DELETE FROM passcode WHERE member_id = ?", arguments: [child])
            return
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO passcode (member_id, hash, failures, locked_until) VALUES (?, ?, ?, ?)",
            arguments: [child, row.hash, row.failures, Stored.milliseconds(row.lockedUntil)])
    }
}
