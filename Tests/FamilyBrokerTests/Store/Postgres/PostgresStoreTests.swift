import Foundation
import HearthCore
import HearthLab
import HearthProtocol
import PostgresNIO
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// What only the PostgreSQL store has: its URL, its schema versions, and a server that goes away and comes back.
/// (Everything both stores share is in `StorageContractTests` and the engine suites, run on both.)
@Suite struct PostgresStoreTests {
    @Test func aStoreURLNamesUserHostPortAndDatabaseAndNeverAPassword() throws {
        let url = try PostgresURL(parsing: "postgres://hearth@db.example:6543/family")
        #expect(url == PostgresURL(user: "hearth", host: "db.example", port: 6543, database: "family"))
        #expect(try PostgresURL(parsing: "postgresql://u@h/d").port == 5432)
        let refused = #expect(throws: PostgresURL.Invalid.self) { try PostgresURL(parsing: "postgres://u:secret@h/d") }
        #expect(refused?.description.contains("storePasswordFile") == true)
        #expect(refused?.description.contains("HEARTH_STORE_PASSWORD") == true)
        #expect(refused?.description.contains("secret") == false)
        for bad in ["mysql://u@h/d", "postgres://h/d", "postgres://u@h/", "postgres://u@h/d?sslmode=require"] {
            #expect(throws: PostgresURL.Invalid.self, "\(bad)") { try PostgresURL(parsing: bad) }
        }
    }

    @Test func theStoreSettingTakesThePasswordFromAFileAndRefusesToGoWithoutOne() throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let file = temp.url.appendingPathComponent("password").path
        try "pw-from-file\n".write(toFile: file, atomically: true, encoding: .utf8)
        let url = "postgres://hearth@127.0.0.1:5432/hearth"
        #expect(throws: (any Error).self, "readable by others") { try StoreLocation.parse(url, passwordFile: file) }
        chmod(file, 0o600)
        let parsed = try StoreLocation.parse(url, passwordFile: file)
        #expect(parsed == .postgres(try PostgresURL(parsing: url), password: "pw-from-file"))
        #expect(try StoreLocation.parse("sqlite", passwordFile: nil) == .sqlite)
        if ProcessInfo.processInfo.environment[StoreLocation.passwordVariable] == nil {
            #expect(throws: (any Error).self) { try StoreLocation.parse(url, passwordFile: nil) }
        }
    }

    @Test(.tags(.postgres)) func aDatabaseMigratedByANewerBrokerIsRefusedNamingBothVersions() async throws {
        let (url, password, drop) = try await TestPostgres.database()
        do {
            _ = try await PostgresStore.opened(url: url, password: password)
            let store = try await PostgresStore.opened(url: url, password: password)
            try await store.transaction(
                { tx in
                    _ = try (tx as! PostgresTransaction).execute("INSERT INTO hearth_schema VALUES (999, now())")
                }, committed: { _ in })
            let refused = await #expect(throws: PostgresStore.SchemaTooNew.self) {
                try await PostgresStore.opened(url: url, password: password)
            }
            #expect(refused?.found == 999 && refused?.known == PostgresStore.schemaVersion)
            #expect(refused?.description.contains("newer") == true)
        } catch {
            await drop()
            throw error
        }
        await drop()
    }

    @Test func anUnreachableServerIsStoreUnavailableNamingTheURL() async throws {
        let url = PostgresURL(user: "hearth", host: "127.0.0.1", port: 1, database: "hearth")
        let error = await #expect(throws: StoreUnavailable.self) {
            try await PostgresStore.opened(url: url, password: "x")
        }
        #expect(error?.description.contains(url.description) == true)
    }

    /// A server of its own (the shared one serves other tests): stopped under the store and started again.
    @Test(.tags(.postgres)) func theStoreReconnectsByItselfWhenItsServerIsBack() async throws {
        try PostgresTier.require()
        let server = try await PostgresServer.start()
        do {
            let url = PostgresURL(user: server.user, host: "127.0.0.1", port: server.port, database: server.database)
            let store = try await PostgresStore.opened(url: url, password: server.password)
            try await append(1, to: store)
            try await server.stop()
            await #expect(throws: StoreUnavailable.self) { try await append(2, to: store) }
            #expect(await store.unreachableReason() != nil)
            try await server.startAgain()
            try await append(2, to: store)
            #expect(
                try await store.storedHeads() == ["emma": 2],
                "nothing acknowledged was lost, nothing refused was stored")
            #expect(await store.unreachableReason() == nil)
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }

    func append(_ sequence: UInt64, to store: PostgresStore) async throws {
        let event = Event(
            memberID: "emma", sequence: sequence, createdAt: Date(timeIntervalSince1970: 1_750_000_000),
            body: .handlesChanged(added: [handle("h\(sequence)")], removed: []))
        try await store.transaction(
            { tx in
                try tx.appendEvent(event, body: Event.storedBody(ofFrame: event.publicationFrame().frame))
            }, committed: { _ in })
    }
}
