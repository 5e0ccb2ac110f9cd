#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import HearthProtocol
import PostgresNIO

/// The directory as stored (`Stored.Family`), revoked keys, child settings, contacts and passcodes.
extension PostgresTransaction {
    func familyRows() throws -> [FamilyID: Stored.Family] {
        let decoder = JSONDecoder()
        var families: [FamilyID: Stored.Family] = [:]
        for row in try rows("SELECT id, entry, source_hash FROM family_entry") {
            let (id, entry, hash) = try row.decode((String, Data, String?).self)
            let family = try decoder.decode(FamilyFile.Family.self, from: entry)
            families[id] = Stored.Family(family: family, sourceHash: hash)
        }
        return families
    }

    func sourceHashes() throws -> [FamilyID: String?] {
        var hashes: [FamilyID: String?] = [:]
        for row in try rows("SELECT id, source_hash FROM family_entry") {
            let (id, hash) = try row.decode((String, String?).self)
            hashes[id] = .some(hash)
        }
        return hashes
    }

    /// As `BrokerStore.holdsExactly`: every row is the file's entry as last applied, byte for byte, and nothing else.
    func holdsExactly(_ file: FamilyFile) throws -> Bool {
        let fileRows = Stored.Family.rows(of: file)
        var index: [FamilyID: Int] = Dictionary(minimumCapacity: fileRows.count)
        for (i, row) in fileRows.enumerated() { index[row.id] = i }
        let encoder = Stored.Family.entryEncoder()
        var matched = 0
        for row in try rows("SELECT id, entry, source_hash FROM family_entry") {
            let (id, stored, hash) = try row.decode((String, Data, String?).self)
            guard let i = index[id] else { return false }
            let entry = try encoder.encode(fileRows[i].family)
            guard stored == entry, hash == Stored.Family.hash(of: entry) else { return false }
            matched += 1
        }
        return matched == fileRows.count
    }

    func storedFile() throws -> FamilyFile? {
        let rows = try familyRows()
        guard !rows.isEmpty else { return nil }
        return Stored.Family.file(from: rows.mapValues(\.family))
    }

    func revokedKeys() throws -> Set<String> {
        Set(try rows("SELECT public_key FROM revoked_key").map { try $0.decode(String.self) })
    }

    func saveFamily(entry: Data, id: FamilyID, sourceHash: String?) throws {
        try post(
            """
            INSERT INTO family_entry (id, entry, source_hash) VALUES (\(id), \(entry), \(sourceHash))
            ON CONFLICT (id) DO UPDATE SET entry = excluded.entry, source_hash = excluded.source_hash
            """)
    }

    func deleteFamily(_ id: FamilyID) throws { try post("DELETE FROM family_entry WHERE id = \(id)") }

    func revokeKey(_ key: String, device: DeviceID, member: MemberID, at date: Date) throws {
        try post(
            """
            INSERT INTO revoked_key (public_key, device_id, member_id, revoked_at)
            VALUES (\(key), \(device), \(member), \(Self.milliseconds(date)))
            ON CONFLICT (public_key) DO UPDATE SET device_id = excluded.device_id, member_id = excluded.member_id,
            revoked_at = excluded.revoked_at
            """)
    }

    func unrevokeKey(_ key: String) throws { try post("DELETE FROM revoked_key WHERE public_key = \(key)") }

    // MARK: settings, contacts, passcodes

    func settings(of child: MemberID) throws -> CommunicationSettings? {
        if let rows = cachedChild(child) { return try rows.settings.map(DecodedSettingsCache.shared.settings(from:)) }
        guard let row = try rows(Self.readSettings(of: child)).first, let data = try AskReadRow(row).blob else {
            return nil
        }
        return try DecodedSettingsCache.shared.settings(from: data)
    }

    func saveSettings(_ settings: CommunicationSettings, of child: MemberID) throws {
        let data = try JSONEncoder().encode(settings)
        try post(
            """
            INSERT INTO child_settings (member_id, settings) VALUES (\(child), \(data))
            ON CONFLICT (member_id) DO UPDATE SET settings = excluded.settings
            """)
        updateCachedChild(child) { $0.settings = data }
    }

    func contacts(of child: MemberID) throws -> [Contact] {
        // COLLATE "C": byte order, as SQLite's, whatever the database's locale.
        try rows(
            """
            SELECT kind, value, downtime FROM contact WHERE child_id = \(child) ORDER BY kind, value COLLATE "C"
            """
        ).compactMap { row in
            let (kind, value, downtime) = try row.decode((Int, String, Bool).self)
            return CommunicationHandle.Kind(rawValue: .init(kind)).map {
                Contact(handle: CommunicationHandle(value: value, kind: $0), allowedDuringDowntime: downtime)
            }
        }
    }

    func contactFlags(of child: MemberID, among handles: [CommunicationHandle]) throws -> [CommunicationHandle: Bool] {
        guard !handles.isEmpty else { return [:] }
        let asked = Set(handles)
        var flags: [CommunicationHandle: Bool] = [:]
        if let rows = cachedChild(child) {
            for handle in asked { flags[handle] = rows.contacts[handle] }
            return flags
        }
        // The engine reads which of them were approved next (`Transaction.knownHandles`): sent now, answered with
        // these.
        readAhead(Self.readKnownHandles(of: child, among: handles))
        for row in try rows(Self.readContactFlags(of: child, among: handles)) {
            let read = try AskReadRow(row)
            guard let handle = read.handle, asked.contains(handle) else { continue }
            flags[handle] = read.downtime ?? false
        }
        return flags
    }

    func upsertContacts(_ contacts: [Contact], of child: MemberID) throws -> [CommunicationHandle] {
        var added: [CommunicationHandle] = []
        for contact in contacts {
            let kind = Int(contact.handle.kind.rawValue)
            let value = contact.handle.value
            // xmax = 0 only for a row this statement inserted (an update leaves the old version's id).
            let inserted =
                try writtenRows(
                    """
                    INSERT INTO contact (child_id, kind, value, downtime)
                    VALUES (\(child), \(kind), \(value), \(contact.allowedDuringDowntime))
                    ON CONFLICT (child_id, kind, value) DO UPDATE SET downtime = excluded.downtime
                    RETURNING (xmax = 0)
                    """
                ).first?.decode(Bool.self) ?? false
            if inserted { added.append(contact.handle) }
        }
        updateCachedChild(child) { rows in
            for contact in contacts { rows.contacts[contact.handle] = contact.allowedDuringDowntime }
        }
        return added
    }

    func removeContacts(_ handles: [CommunicationHandle], of child: MemberID) throws -> [CommunicationHandle] {
        updateCachedChild(child) { rows in
            for handle in handles { rows.contacts[handle] = nil }
        }
        return try Array(Set(handles)).filter { handle in
            try changes(
                """
                DELETE FROM contact WHERE child_id = \(child) AND kind = \(Int(handle.kind.rawValue))
                AND value = \(handle.value)
                """) > 0
        }
    }

    func passcode(of child: MemberID) throws -> Stored.Passcode? {
        try rows("SELECT hash, failures, locked_until FROM passcode WHERE member_id = \(child)").first.map { row in
            let (hash, failures, lockedUntil) = try row.decode((String, Int, Int64).self)
            return Stored.Passcode(hash: hash, failures: failures, lockedUntil: Self.date(milliseconds: lockedUntil))
        }
    }

    func savePasscode(_ row: Stored.Passcode?, of child: MemberID) throws {
        guard let row else {
            try post("DELETE FROM passcode WHERE member_id = \(child)")
            return
        }
        try post(
            """
            INSERT INTO passcode (member_id, hash, failures, locked_until)
            VALUES (\(child), \(row.hash), \(row.failures), \(Self.milliseconds(row.lockedUntil)))
            ON CONFLICT (member_id) DO UPDATE SET hash = excluded.hash, failures = excluded.failures,
            locked_until = excluded.locked_until
            """)
    }
}
#endif
