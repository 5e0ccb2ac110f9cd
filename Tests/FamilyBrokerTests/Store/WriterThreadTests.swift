import Foundation
import HearthCore
import HearthService
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
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

    /// Named as `/proc` and profilers show it, so the broker's writer CPU shows apart (`broker-writer` in `top -H`).
    @Test func itsThreadCarriesItsName() async {
        let writer = WriterThread(name: "test-writer")
        defer { writer.stop() }
        let name = await Task(executorPreference: writer) {
            try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        }.value
        #expect(name?.trimmingCharacters(in: .whitespacesAndNewlines) == "test-writer")
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
        let (worker, onWriter) = try await store.transaction(
            { _ in (Self.threadID(), WriterThread.isCurrent) }, committed: { _ in })
        #expect(worker != caller)
        #expect(!onWriter)
    }

    /// The inline write and GRDB's queue serialize: a transaction on the writer thread waits for one the queue is
    /// running (held open by `commitDelay`), and both commit.
    @Test(.timeLimit(.minutes(1)))
    func anInlineTransactionWaitsForOneOnGRDBsQueue() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath, commitDelay: { .milliseconds(200) })
        let writer = WriterThread(name: "test-writer")
        defer { writer.stop() }
        let first = emmasQuestion("first")
        let second = emmasQuestion("second")
        async let queued: Void = store.transaction(
            { tx in
                try tx.insert(first, resolution: nil)
            }, committed: { _ in })
        try await Task.sleep(for: .milliseconds(50))
        try await Task(executorPreference: writer) {
            try await store.transaction(
                { tx in
                    try tx.insert(second, resolution: nil)
                }, committed: { _ in })
        }.value
        try await queued
        let stored = try await store.reading { reader in
            try [first, second].map { try reader.question($0.question.id) != nil }
        }
        #expect(stored == [true, true])
    }

    @Test func aJobEnqueuedAfterStopStillRuns() async throws {
        let writer = WriterThread(name: "test-writer")
        writer.stop()
        // With no job queued the thread ends at once; the job below then finds it gone.
        try await Task.sleep(for: .milliseconds(100))
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: writer) { done.signal() }
        let ran = await BlockingWork.run { done.wait(timeout: .now() + 10) == .success }
        #expect(ran, "a job enqueued after the thread ended never ran")
    }
}
