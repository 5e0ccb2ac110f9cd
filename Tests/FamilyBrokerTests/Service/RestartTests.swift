import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Logging
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A restart's directory: kept from the family file when every stored row is the file's entry unchanged, else built
/// from the stored rows and merged with the file; either way what building the stored directory and applying the file
/// to it gave, checked on a copy of the same store.
@Suite("Broker restart")
struct RestartTests {
    private static let clock = TestClock()

    private static var logger: Logger {
        var logger = Logger(label: "RestartTests")
        logger.logLevel = .critical
        return logger
    }

    /// Every row of every table, as text, in a stable order.
    private func dump(_ store: BrokerStore) async throws -> [String: [String]] {
        try await store.read { db in
            var tables: [String: [String]] = [:]
            for table in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            {
                tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map(\.description).sorted()
            }
            return tables
        }
    }

    /// Restarts on `broker`'s store with `file` (keys relative to `keysDirectory`) and, on a copy of the store made
    /// just before, as the broker started before (the stored directory built, then the file applied to it); expects
    /// the same directory, events, closed devices and tables. Returns whether the stored rows were the file's entries,
    /// the restart's directory and what applying the file produced.
    private func restart(
        _ broker: BrokerHarness, file: FamilyFile, keysDirectory: String = "/",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (unchanged: Bool, directory: Directory, applied: BrokerEngine.Output) {
        let policy = BrokerHarness.policy
        let configuration: @Sendable () throws -> Directory = {
            try Directory(
                file: file, keysDirectory: keysDirectory, source: "family.yaml", rules: policy.regions,
                maxFamilyMembers: policy.maxFamilyMembers)
        }
        let copy = try TempDirectory()
        defer { copy.remove() }
        try await broker.store.pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [copy.databasePath])
        }
        let unchanged = try await broker.store.read { db in
            try BrokerStore.holdsExactly(try configuration().file, in: db)
        }

        let (directory, applied) = try await FamilyBrokerService.startupDirectory(
            broker.store, sequences: SequenceBook(try await broker.storage.storedHeads()), policy: policy,
            logger: Self.logger,
            clock: { Self.clock.now },
            configuration: configuration)

        let before = try await BrokerStore.opened(at: copy.databasePath)
        let beforeDirectory = DirectoryBox(try await FamilyBrokerService.storedDirectory(before, policy: policy))
        let beforeApplied = try await BrokerEngine(
            store: before, directory: beforeDirectory, sequences: SequenceBook(try await before.storedHeads()),
            logger: Self.logger,
            policy: policy,
            clock: { Self.clock.now }
        ).applyConfiguration(try configuration())

        expectSame(directory.current, beforeDirectory.current, sourceLocation: sourceLocation)
        #expect(applied.events == beforeApplied.events, sourceLocation: sourceLocation)
        #expect(applied.eventFrames == beforeApplied.eventFrames, sourceLocation: sourceLocation)
        #expect(
            applied.disconnectedDevices.sorted() == beforeApplied.disconnectedDevices.sorted(),
            sourceLocation: sourceLocation)
        #expect(try await dump(broker.store) == (try await dump(before)), sourceLocation: sourceLocation)
        // And what the broker stored builds the directory it runs with.
        expectSame(
            directory.current, try await FamilyBrokerService.storedDirectory(broker.store, policy: policy),
            sourceLocation: sourceLocation)
        return (unchanged, directory.current, applied)
    }

    private func writeCount(_ broker: BrokerHarness) async throws -> Int {
        try await broker.store.pool.write { db in db.totalChangesCount }
    }

    @Test func aRestartWithTheFileUnchangedKeepsItsDirectoryAndWritesNothing() async throws {
        try await BrokerHarness.with { broker in
            // One key read from a key file: the stored row holds it inline, as the file's resolved entry does.
            var file = broker.directory.file
            try Data((broker.directory.devices["y1"]!.publicKey + "\n").utf8).write(
                to: broker.temp.url.appendingPathComponent("y1.key"))
            file.families[1].members[1].devices = [FamilyFile.Device(id: "y1", keyFile: "y1.key")]
            let keys = broker.temp.url.path
            _ = try await broker.engine.applyConfiguration(
                try Directory(file: file, keysDirectory: keys, source: "family.yaml"))
            let writes = try await writeCount(broker)

            let restarted = try await restart(broker, file: file, keysDirectory: keys)
            #expect(restarted.unchanged)
            #expect(restarted.applied.events.isEmpty)
            #expect(restarted.applied.disconnectedDevices.isEmpty)
            #expect(try await writeCount(broker) == writes)
            #expect(restarted.directory.devices["y1"]?.publicKey == broker.directory.devices["y1"]?.publicKey)
        }
    }

    @Test func aRestartAfterAnAdminEditOfAnUnchangedEntryKeepsTheEdit() async throws {
        try await BrokerHarness.with { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            let edits: [AdminRequest] = [
                AdminRequest(.setRole, member: "carol", role: "guardian"),
                AdminRequest(.addMember, entry: FamilyFile.Member(id: "walk-in", role: "adult", devices: [])),
            ]
            for request in edits {
                _ = try await broker.engine.admin(request) {
                    throw ConfigurationError(source: "family.yaml", key: "", reason: "not read here")
                }.get()
            }
            let writes = try await writeCount(broker)

            let restarted = try await restart(broker, file: broker.directory.file)
            #expect(!restarted.unchanged)
            #expect(restarted.directory.members["carol"]?.role == .guardian)
            #expect(restarted.directory.members["walk-in"] != nil)
            #expect(restarted.applied.events.isEmpty)
            #expect(try await writeCount(broker) == writes)
        }
    }

    @Test func aRestartKeepsARevokedKeyOut() async throws {
        try await BrokerHarness.with { broker in
            let emma = try #require(broker.directory.devices["e1"])
            try await broker.store.pool.write { db in
                try BrokerStore.revokeKey(emma.publicKey, device: "e1", member: "emma", at: Date(), in: db)
            }
            _ = try await broker.engine.applyConfiguration(broker.directory)

            let restarted = try await restart(broker, file: broker.directory.file)
            #expect(!restarted.unchanged)
            #expect(restarted.directory.devices["e1"] == nil)
        }
    }

    @Test func aRestartWithAChangedFileMergesItAsBefore() async throws {
        try await BrokerHarness.with { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            _ = try #require(try await broker.ask(question(["pal"]), from: "emma").reply.accepted)
            var file = broker.directory.file
            file.families[0].members.removeAll { $0.id == "emma" }
            file.families[1].name = "Two, renamed"
            file.families.append(
                FamilyFile.Family(
                    id: "f3",
                    members: [
                        FamilyFile.Member(
                            id: "olga", role: "organizer",
                            devices: [FamilyFile.Device(id: "o1", publicKey: try TestFamily.key())])
                    ]))

            let restarted = try await restart(broker, file: file)
            #expect(!restarted.unchanged)
            #expect(restarted.directory.members["emma"] == nil)
            #expect(restarted.directory.members["olga"] != nil)
            #expect(!restarted.applied.events.isEmpty, "emma's pending question is resolved")
            #expect(restarted.applied.disconnectedDevices == ["e1"])
        }
    }

    @Test func aRestartTellsAnyRowTheFileDidNotGiveFromTheFilesOwn() async throws {
        try await BrokerHarness.with { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            let file = broker.directory.file
            let holds = { try await broker.store.read { db in try BrokerStore.holdsExactly(file, in: db) } }
            #expect(try await holds())
            // A row that is only the broker's (no source hash), then one the file has not.
            try await broker.store.pool.write { db in
                try db.execute(sql: "UPDATE family_entry SET source_hash = NULL WHERE id = 'f2'")
            }
            #expect(!(try await holds()))
            _ = try await restart(broker, file: file)
            #expect(try await holds())
            try await broker.store.pool.write { db in
                try BrokerStore.saveFamily(
                    entry: try Stored.Family.entryEncoder().encode(FamilyFile.Family(id: "f9", members: [])), id: "f9",
                    sourceHash: nil, in: db)
            }
            #expect(!(try await holds()))
            // And a file with a family the store has not.
            try await broker.store.pool.write { db in try BrokerStore.deleteFamily("f9", in: db) }
            #expect(try await holds())
            var more = file
            more.families.append(
                FamilyFile.Family(id: "f3", members: [FamilyFile.Member(id: "olga", role: "organizer", devices: [])]))
            let larger = more
            #expect(!(try await broker.store.read { db in try BrokerStore.holdsExactly(larger, in: db) }))
        }
    }

    @Test func aRestartWithAnInvalidFileFailsAsBeforeAndStoresNothing() async throws {
        try await BrokerHarness.with { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            let before = try await dump(broker.store)
            var file = broker.directory.file
            file.families[0].members[0].role = "boss"
            let error = await #expect(throws: ConfigurationError.self) {
                _ = try await FamilyBrokerService.startupDirectory(
                    broker.store, sequences: SequenceBook(try await broker.storage.storedHeads()),
                    policy: BrokerHarness.policy,
                    logger: Self.logger,
                    clock: { Self.clock.now },
                    configuration: { try Directory(file: file, keysDirectory: "/", source: "family.yaml") })
            }
            #expect(error?.key == "families[0].members[0].role")
            #expect(try await dump(broker.store) == before)
        }
    }
}
