import Foundation
import HearthCore
import Testing

@testable import FamilyBroker

/// The writer stage's own thread (`WriterThread`): a task preferring it runs there, and the SQLite store's transaction
/// then runs on that same thread instead of on GRDB's queue.
@Suite("Writer thread")
struct WriterThreadTests {
    /// The calling thread, as the test compares them.
    static func threadID() -> UInt { UInt(pthread_self()) }

    @Test func aTaskPreferringItRunsOnItAndNowhereElseCountsAsIt() async {
        let writer = WriterThread(name: "test-writer")
        defer { writer.stop() }
        #expect(!WriterThread.isCurrent)
        let (onWriter, sameThreadAfterAwait) = await Task(executorPreference: writer) {
            let before = Self.threadID()
            let current = WriterThread.isCurrent
            await Task.yield()
            return (current, Self.threadID() == before)
        }.value
        #expect(onWriter)
        #expect(sameThreadAfterAwait)
        #expect(!WriterThread.isCurrent)
    }

    @Test func theStoreRunsItsTransactionInlineOnTheWriterThreadOnly() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let writer = WriterThread(name: "test-writer")
        defer { writer.stop() }
        let inline = try await Task(executorPreference: writer) {
            let caller = Self.threadID()
            let worker = try await store.transaction({ _ in Self.threadID() }, committed: { _ in })
            return worker == caller
        }.value
        #expect(inline)
        // Off the writer thread the caller may be the cooperative pool, which must not block on the disk.
        let caller = Self.threadID()
        let worker = try await store.transaction({ _ in Self.threadID() }, committed: { _ in })
        #expect(worker != caller)
    }
}
