import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Synchronization
import Testing

@testable import DeviceRuntime

/// How the runtime applies the broker's events: in order, each once, stopping at a gap (the Clone pattern).
struct DeviceStoreTests {
    /// Records the sequence numbers it applies, in a table of its own (so a rolled-back apply leaves no trace).
    final class Recording: DeviceBehavior {
        let name = "recording"
        let failAt: UInt64?

        init(failAt: UInt64? = nil) { self.failAt = failAt }

        static func migrate(_ migrator: inout DatabaseMigrator) {
            migrator.registerMigration("recording") { db in
                try db.execute(sql: "CREATE TABLE seen (sequence INTEGER)")
            }
        }

        func apply(_ event: Event, in db: Database) throws {
            if event.sequence == failAt { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "refused") }
            try db.execute(sql: "INSERT INTO seen (sequence) VALUES (?)", arguments: [Int64(event.sequence)])
        }

        func applied(_ events: [Event], context: any DeviceContext) async {}
        func handleLocal(_ envelope: Envelope, from routingID: [UInt8], context: any DeviceContext) async -> Message? {
            nil
        }
        func linked(context: any DeviceContext) async {}
    }

    let store: DeviceStore

    init() async throws {
        store = try await temporaryStore { Recording.migrate(&$0) }
    }

    func seen() throws -> [Int64] {
        try store.pool.read { db in try Int64.fetchAll(db, sql: "SELECT sequence FROM seen") }
    }

    static func events(_ numbers: UInt64...) -> [Event] {
        numbers.map { Fixtures.event($0, .handlesChanged(added: [], removed: [])) }
    }

    @Test func appliesInOrderOnceAndDiscardsWhatItHasSeen() async throws {
        let behavior = Recording()
        let first = try await store.apply(Self.events(2, 1, 3), behavior: behavior)
        #expect(first.applied.map(\.sequence) == [1, 2, 3])
        #expect(first.gap == nil)
        let again = try await store.apply(Self.events(2, 3, 4), behavior: behavior)
        #expect(again.applied.map(\.sequence) == [4])
        #expect(try seen() == [1, 2, 3, 4])
        #expect(try await store.lastApplied() == 4)
    }

    @Test func stopsAtAGapAndSaysWhere() async throws {
        let result = try await store.apply(Self.events(1, 2, 5, 6), behavior: Recording())
        #expect(result.applied.map(\.sequence) == [1, 2])
        #expect(result.gap?.expected == 3 && result.gap?.got == 5)
        #expect(try await store.lastApplied() == 2)
    }

    @Test func aFailedApplyRecordsNothing() async throws {
        await #expect(throws: DatabaseError.self) {
            try await store.apply(Self.events(1, 2, 3), behavior: Recording(failAt: 3))
        }
        #expect(try seen().isEmpty)
        #expect(try await store.lastApplied() == 0)
    }

    @Test func knowsItsLastAppliedNumberWithoutAReadOnceReadOrWritten() async throws {
        #expect(store.knownLastApplied == nil)
        #expect(try await store.lastApplied() == 0)
        #expect(store.knownLastApplied == 0)
        _ = try await store.apply(Self.events(1, 2), behavior: Recording())
        #expect(store.knownLastApplied == 2)
        // A failed apply leaves the number where the file has it.
        _ = try? await store.apply(Self.events(3), behavior: Recording(failAt: 3))
        #expect(store.knownLastApplied == 2)
        let reopened = try await openedStore(path: store.pool.path) { Recording.migrate(&$0) }
        #expect(reopened.knownLastApplied == nil)
        #expect(try await reopened.lastApplied() == 2)
    }

    @Test func anEventsSequenceIsReadWithoutDecodingItsBody() {
        let event = Fixtures.event(41, .handlesChanged(added: [], removed: []))
        let frame = MessageCodec.encode(.event(event), requestID: 0)
        #expect(MessageCodec.peekEventSequence(frame) == 41)
        // Only the header, the member and the number need to be intact.
        var damaged = frame
        damaged.removeLast(3)
        #expect(MessageCodec.peekEventSequence(damaged) == 41)
        #expect(MessageCodec.peekEventSequence(Array(frame.prefix(Wire.headerSize + 6))) == nil)
        #expect(MessageCodec.peekEventSequence(MessageCodec.encode(.heartbeat(head: 41), requestID: 0)) == nil)
        #expect(MessageCodec.peekEventSequence([]) == nil)
    }

    /// Every commit is synced (`synchronous=FULL` on the writer): GRDB's pool would leave it at NORMAL.
    @Test func theWriterSyncsAtEveryCommit() async throws {
        let mode = try await store.pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        #expect(mode == 2, "PRAGMA synchronous on the writer: 2 is FULL, 1 NORMAL")
    }

    @Test func remembersValuesAcrossReopening() async throws {
        try await store.setValue("emma", for: "member_id")
        let path = store.pool.path
        try store.pool.close()
        let reopened = try await openedStore(path: path) { Recording.migrate(&$0) }
        #expect(try await reopened.value("member_id") == "emma")
        #expect(try await reopened.value("device_id") == nil)
    }
}
