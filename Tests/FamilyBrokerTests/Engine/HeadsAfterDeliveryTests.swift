import Foundation
import HearthCore
import HearthProtocol
import Synchronization
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The heartbeat task reads a member's head from the `SequenceBook` on another thread and queues `heartbeat(head)`
/// on the member's topic. Were the head to advance before the commit's events are queued, a heartbeat could leave
/// ahead of the events it counts, and a device up to date would take it for a gap and sync. So the engine hands a
/// commit's events to `deliver` first and advances the heads after.
@Suite("Heads advance after delivery")
struct HeadsAfterDeliveryTests {
    /// Each delivered event with its member's head as the book showed it while `deliver` ran.
    final class Seen: Sendable {
        let items = Mutex<[(member: MemberID, sequence: UInt64, headDuringDelivery: UInt64)]>([])
    }

    @Test
    func deliveredEventsAreAheadOfTheHeadsUntilDeliveryReturns() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let sequences = SequenceBook(try await store.storedHeads())
        let seen = Seen()
        let clock = TestClock()
        let engine = BrokerEngine(
            storage: store, directory: DirectoryBox(try TestFamily.directory()), sequences: sequences,
            logger: quietLogger, policy: BrokerHarness.policy, clock: { clock.now },
            deliver: { output in
                for event in output.events {
                    let head = sequences.head(of: event.memberID)
                    seen.items.withLock { $0.append((event.memberID, event.sequence, head)) }
                }
            })
        let intake = CommandIntake(engine: engine)
        // Two commits: emma's asks (events for emma, alice and bob), then one more, so the second starts from heads
        // that are not zero.
        for round in 0..<2 {
            let batch = (0..<3).map { n in
                CommandIntake.Inbound(
                    routingID: BrokerHarness.routingID(n), deviceID: "e1",
                    frame: MessageCodec.encode(
                        .ask(appBundleID: "com.example.chat", question: question(["r\(round)-\(n)"])),
                        requestID: UInt64(n + 1)))
            }
            let (_, committed) = await intake.process(batch)
            #expect(!committed.events.isEmpty)
        }
        let items = seen.items.withLock { $0 }
        #expect(Set(items.map(\.member)).isSuperset(of: ["emma", "alice", "bob"]))
        for item in items {
            #expect(
                item.headDuringDelivery < item.sequence,
                "\(item.member) #\(item.sequence) delivered while the head already read \(item.headDuringDelivery)")
        }
        // Once delivered, the heads cover every event.
        for member in Set(items.map(\.member)) {
            let last = items.filter { $0.member == member }.map(\.sequence).max() ?? 0
            #expect(sequences.head(of: member) == last)
        }
    }
}
