import Synchronization
import Testing
import ZeroMQ

@testable import FamilyBroker

/// The writer's stage takes what waits as one batch; with an interval, batches start at least that far apart.
@Suite struct CommitPacerTests {
    /// Each batch the pacer handed over, and when.
    final class Batches: Sendable {
        let taken = Mutex<[(items: [Int], at: ContinuousClock.Instant)]>([])
        var all: [(items: [Int], at: ContinuousClock.Instant)] { taken.withLock { $0 } }
    }

    /// Two items pushed one after the other, just after the first batch started, are taken together, and not
    /// before the interval since that start has passed.
    @Test func whatArrivesWithinTheIntervalJoinsTheNextBatch() async throws {
        let mailbox = Mailbox<Int>()
        let batches = Batches()
        let interval = Duration.milliseconds(400)
        let pacer = Task {
            await CommitPacer(interval: interval).run(mailbox) { items in
                batches.taken.withLock { $0.append((items, .now)) }
                if items == [1] {
                    mailbox.push([2])
                    mailbox.push([3])
                }
                return items.last != 3
            }
        }
        mailbox.push([1])
        await pacer.value
        let all = batches.all
        #expect(all.map(\.items) == [[1], [2, 3]])
        if all.count == 2 { #expect(all[1].at - all[0].at >= interval) }
    }

    /// The first item of a run is taken at once, whatever the interval: a lone command on an idle broker never waits.
    @Test func anIdlePacerTakesTheFirstItemAtOnce() async throws {
        let mailbox = Mailbox<Int>()
        let batches = Batches()
        let started = ContinuousClock.now
        let pacer = Task {
            await CommitPacer(interval: .seconds(30)).run(mailbox) { items in
                batches.taken.withLock { $0.append((items, .now)) }
                return false
            }
        }
        mailbox.push([7])
        await pacer.value
        let all = batches.all
        #expect(all.map(\.items) == [[7]])
        #expect(all.allSatisfy { $0.at - started < .seconds(30) }, "the first item did not wait for the interval")
    }
}
