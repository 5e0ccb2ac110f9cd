import Foundation
import GRDB
import HearthCore
import HearthLab
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The engine on a SQLite file whose disk fills up: a tmpfs of the test's own (a loop-mounted image where a tmpfs
/// cannot be mounted; without root neither works, and the test fails saying so). A batch the disk refuses is
/// answered with `brokerUnavailable`, stores and publishes nothing, and the same commands succeed once there is room.
@Suite("A full disk under the engine", .serialized)
struct FullDiskEngineTests {
    static func askFrame(_ question: Question, _ requestID: UInt64) -> [UInt8] {
        MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: question), requestID: requestID)
    }

    @Test func aBatchTheDiskRefusesGetsBrokerUnavailableStoresNothingAndSucceedsOnceSpaceIsBack() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let disk = try await SmallFilesystem.mount(at: temp.url.path + "/disk", megabytes: 4)
        do {
            try await refusedThenResumed(disk: disk, temp: temp)
        } catch {
            await disk.unmount()
            throw error
        }
        await disk.unmount()
    }

    private func refusedThenResumed(disk: SmallFilesystem, temp: TempDirectory) async throws {
        let store = try await BrokerStore.opened(at: disk.directory + "/broker.sqlite")
        let broker = try await BrokerHarness(storage: store, temp: temp)
        #expect(try await broker.ask(question(["before"])).reply.accepted != nil)
        let filler = disk.directory + "/filler"
        try disk.fill(filler)

        // SQLite may still hold room in its log for a few commits: ask until a batch is refused.
        var refused: (frame: [UInt8], replies: [Message], events: [Event])?
        var heads = broker.sequences.snapshot()
        for n in 0..<500 where refused == nil {
            heads = broker.sequences.snapshot()
            let frame = Self.askFrame(question(["full-\(n)"]), UInt64(n + 1))
            let ping = MessageCodec.encode(.ping, requestID: 9000)
            let sync = MessageCodec.encode(.sync(after: 0, limit: 10), requestID: 9001)
            let (replies, events) = try await broker.batch([("e1", frame), ("e1", ping), ("a1", sync)])
            if replies[0].errorReply != nil { refused = (frame, replies, events) }
        }
        let failed = try #require(refused, "the disk never refused a commit (\(disk.freeBytes) bytes free)")
        let error = try #require(failed.replies[0].errorReply)
        #expect(error.code == .brokerUnavailable, "\(error)")
        #expect(error.message.contains("full"), "\(error.message)")
        #expect(failed.events.isEmpty, "nothing of a refused batch is published")
        // Link commands store nothing: answered from committed state, so devices stay linked.
        #expect(failed.replies[1] == .pong(head: heads["emma"] ?? 0), "\(failed.replies[1])")
        #expect(failed.replies[2].eventsReply?.head == heads["alice"], "\(failed.replies[2])")
        #expect(broker.sequences.snapshot() == heads, "no sequence number taken by a refused batch")
        #expect(try await store.storedHeads() == heads)
        #expect(store.writeProblem?.contains("full") == true, "\(store.writeProblem ?? "nil")")
        #expect(await store.probeWrite() != nil, "a probe on a full disk fails")

        try FileManager.default.removeItem(atPath: filler)
        #expect(await store.probeWrite() == nil, "space is back")
        #expect(store.writeProblem == nil)
        let (replies, events) = try await broker.batch([("e1", failed.frame)])
        #expect(replies[0].accepted != nil, "the same ask, sent again, is stored: \(replies[0])")
        let next = ["emma", "alice", "bob"].map { (heads[$0] ?? 0) + 1 }
        #expect(events.map(\.sequence) == next, "each log goes on from its head")
        for (member, log) in try await broker.logs() {
            let expected = (0..<UInt64(log.events.count)).map { $0 + 1 }
            #expect(log.events.map(\.sequence) == expected && expected.last ?? 0 == log.head, "\(member)'s log")
        }
    }

    /// A write refused inside one command's savepoint (here the database's page limit, which SQLite reports as
    /// SQLITE_FULL at the statement, as it may a full disk) fails the whole batch: SQLite may have rolled the whole
    /// transaction back, so no other command of it may be acknowledged.
    @Test func aWriteRefusedInsideACommandFailsTheWholeBatch() async throws {
        try await BrokerHarness.with { broker in
            #expect(try await broker.ask(question(["before"])).reply.accepted != nil)
            let heads = broker.sequences.snapshot()
            let questions = try await broker.questionCount()
            let pages = try await broker.store.write { db in
                let count = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                try db.execute(sql: "PRAGMA max_page_count = \(count)")
                return count
            }
            // Larger than a page: it needs pages the limit refuses.
            let big = question((0..<20).map { String(repeating: "h", count: 250) + "\($0)" })
            let frames = [
                Self.askFrame(question(["small"]), 1), Self.askFrame(big, 2), Self.askFrame(question(["after"]), 3),
            ]
            let (replies, events) = try await broker.batch(frames.map { ("e1", $0) })
            #expect(replies.allSatisfy { $0.errorReply?.code == .brokerUnavailable }, "\(replies)")
            #expect(events.isEmpty && broker.sequences.snapshot() == heads)
            #expect(try await broker.questionCount() == questions, "nothing of the batch is stored")

            _ = try await broker.store.write { db in try db.execute(sql: "PRAGMA max_page_count = \(pages * 100)") }
            await broker.store.probeWrite()
            let (again, stored) = try await broker.batch(frames.map { ("e1", $0) })
            #expect(again.allSatisfy { $0.accepted != nil }, "\(again)")
            #expect(stored.count == 9)
        }
    }

    @Test func refusedWritesAreStoreUnavailableAndOtherErrorsStayAsTheyAre() {
        let full = BrokerStore.classify(DatabaseError(resultCode: .SQLITE_FULL))
        #expect((full as? StoreUnavailable)?.description.contains("full") == true)
        let io = BrokerStore.classify(DatabaseError(resultCode: .SQLITE_IOERR_WRITE, message: "disk I/O error"))
        #expect((io as? StoreUnavailable)?.description.contains("disk I/O error") == true, "\(io)")
        let constraint = BrokerStore.classify(DatabaseError(resultCode: .SQLITE_CONSTRAINT))
        #expect(!(constraint is StoreUnavailable))
    }
}
