import FamilyFileYAML
import Foundation
import GRDB
import HearthCore
import HearthProtocol
import HearthService
import PostgresNIO
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The family file's import into an empty store, which encodes each family once and keeps the file's validated
/// directory instead of building it again from the same families.
@Suite("Family file import")
struct FamilyImportTests {
    /// Each stored row: its entry's bytes and its source hash.
    private func storedRows(_ broker: BrokerHarness) async throws -> [FamilyID: (entry: Data, hash: String?)] {
        if broker.storage is PostgresStore {
            let rows = try await broker.storage.reading { reader in
                try (reader as! PostgresTransaction).rows("SELECT id, entry, source_hash FROM family_entry")
                    .map { try $0.decode((String, Data, String?).self) }
            }
            return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, (entry: $0.1, hash: $0.2)) })
        }
        return try await broker.store.read { db in
            var rows: [FamilyID: (entry: Data, hash: String?)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, entry, source_hash FROM family_entry") {
                rows[row[0]] = (row[1], row[2])
            }
            return rows
        }
    }

    @Test(arguments: StorageBackend.all)
    func aFirstImportStoresEachEntryWithTheHashOfTheFilesEntry(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            let rows = try await storedRows(broker)
            let expected = Stored.Family.rows(of: broker.directory.file)
            #expect(rows.count == expected.count)
            for (id, family) in expected {
                let row = try #require(rows[id])
                #expect(row.entry == (try Stored.Family.entryEncoder().encode(family)))
                #expect(row.hash == Transaction.hash(family))
                #expect(row.hash == Stored.Family.hash(of: row.entry))
            }
        }
    }

    @Test func aFirstImportKeepsTheDirectoryItsStoredRowsWouldMake() async throws {
        var file = try TestFamily.file()
        // Out of id order and with no unaffiliated list: the stored rows give both back differently.
        file.families.reverse()
        file.families[0].members.append(FamilyFile.Member(id: "zoe", role: "adult", devices: []))
        file.unaffiliated = nil
        let configured = try Directory(file: file, keysDirectory: "/", source: "family.yaml")
        let temp = try TempDirectory()
        defer { temp.remove() }
        let broker = try await BrokerHarness(temp: temp, directory: Directory())
        _ = try await broker.engine.applyConfiguration(configured)

        let stored = try #require(try await broker.store.read { db in try BrokerStore.storedFile(in: db) })
        #expect(stored.families.map(\.id) == ["f1", "f2"])
        #expect(stored.unaffiliated == [])
        let rebuilt = try Directory(file: stored, keysDirectory: "/", source: "db")
        expectSame(broker.engine.directory.current, rebuilt)
        #expect(broker.engine.directory.current.file == stored)
    }

    @Test func reapplyingAnUnchangedFileWritesNothingAndPublishesNothing() async throws {
        try await BrokerHarness.with { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            let rows = try await storedRows(broker)
            let before = try await broker.fingerprint()
            let changes = try await broker.store.pool.write { db in db.totalChangesCount }

            let output = try await broker.engine.applyConfiguration(
                try Directory(file: broker.directory.file, keysDirectory: "/", source: "family.yaml"))
            #expect(output.events.isEmpty)
            #expect(output.disconnectedDevices.isEmpty)
            #expect(try await broker.store.pool.write { db in db.totalChangesCount } == changes)
            #expect(try await broker.fingerprint() == before)
            let after = try await storedRows(broker)
            #expect(after.mapValues(\.entry) == rows.mapValues(\.entry))
            #expect(after.mapValues(\.hash) == rows.mapValues(\.hash))
        }
    }

    @Test func aRevokedKeyInAFirstImportIsLeftOutButTheHashIsTheFilesEntrys() async throws {
        try await BrokerHarness.with { broker in
            let file = broker.directory.file
            let emma = try #require(broker.directory.devices["e1"])
            try await broker.store.pool.write { db in
                try BrokerStore.revokeKey(emma.publicKey, device: "e1", member: "emma", at: Date(), in: db)
            }
            _ = try await broker.engine.applyConfiguration(broker.directory)
            #expect(broker.engine.directory.current.devices["e1"] == nil)
            #expect(broker.engine.directory.current.devices["a1"] != nil)
            let f1 = try #require(try await storedRows(broker)["f1"])
            #expect(f1.hash == Transaction.hash(file.families[0]))
            #expect(f1.hash != Stored.Family.hash(of: f1.entry))
            let stored = try JSONDecoder().decode(FamilyFile.Family.self, from: f1.entry)
            #expect(stored.members.first { $0.id == "emma" }?.devices == [])

            // The same file again: unchanged, so the key stays out and nothing is written.
            let changes = try await broker.store.pool.write { db in db.totalChangesCount }
            _ = try await broker.engine.applyConfiguration(broker.directory)
            #expect(try await broker.store.pool.write { db in db.totalChangesCount } == changes)
            #expect(broker.engine.directory.current.devices["e1"] == nil)
        }
    }

    @Test func aFamilyFileLoadsAsItsTextParsesWhetherReadAsBytesOrAsText() throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        func load(_ bytes: [UInt8]) throws -> FamilyFile {
            let path = temp.url.appendingPathComponent("family-\(UUID().uuidString).yaml").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return try FamilyFile.load(path: path)
        }
        let file = FamilyFile(
            families: [
                .init(
                    id: "f1", name: "The \"Ones\" / x",
                    members: [
                        .init(
                            id: "alice", role: "organizer", timeZone: "America/Chicago",
                            devices: [.init(id: "a1", publicKey: try CurveKeyPair.generate().publicKey)])
                    ])
            ], unaffiliated: [.init(id: "nora", role: "adult")])
        // ASCII JSON: decoded from the file's bytes.
        let json = String(decoding: try JSONEncoder().encode(file), as: UTF8.self)
        #expect(try load(Array((" \n" + json).utf8)) == file)
        // Not ASCII, not JSON, or JSON the decoder refuses: read as text, as before.
        var named = file
        named.families[0].name = "Les Élus"
        #expect(try load(Array(String(decoding: try JSONEncoder().encode(named), as: UTF8.self).utf8)) == named)
        #expect(try load(Array(try file.yaml().utf8)) == file)
        #expect(
            try load(Array("{families: [{id: f1, members: [{id: alice, role: organizer}]}]}".utf8)).families.first?
                .members.first?.id == "alice")
        let missing = try #require(throws: ConfigurationError.self) {
            try load(Array(#"{"families": [{"id": "f1", "members": [{"id": "emma"}]}]}"#.utf8))
        }
        #expect(missing.key == "families[0].members[0].role", "\(missing)")
        let invalid = try #require(throws: ConfigurationError.self) {
            try load(Array(#"{"families": [{"id": "f"#.utf8) + [0xFF] + Array(#""}]}"#.utf8))
        }
        #expect(invalid.reason == "cannot read the family file")
    }

    @Test func aFamilyOverTheBrokersLimitIsRefusedAsBeforeAndNothingIsStored() async throws {
        var policy = BrokerHarness.policy
        policy.maxFamilyMembers = 4
        let temp = try TempDirectory()
        defer { temp.remove() }
        // The file was read with the default limit (6); the broker's policy allows 4, and f1 has 5 members.
        let broker = try await BrokerHarness(temp: temp, policy: policy)
        do {
            _ = try await broker.engine.applyConfiguration(broker.directory)
            Issue.record("a family over the broker's limit was imported")
        } catch let error as ConfigurationError {
            #expect(error.key == "families[0].members")
            #expect(error.source == "\(Transaction.storedSource) merged with the family file")
        }
        #expect(try await storedRows(broker).isEmpty)
    }
}
