import Foundation
import Testing

@testable import HearthLoad

/// The load test's question ids (`QuestionTag`): each names its run, shard and number, ascending by default and
/// spread over the id space with `random` (`cycle --random-ids`).
@Suite("Question tags")
struct QuestionTagTests {
    static func bytes(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }

    @Test(arguments: [false, true])
    func anIdNamesItsRunShardAndCounter(random: Bool) {
        for counter: UInt64 in [0, 1, 255, 256, 70_000, 1 << 40] {
            let id = QuestionTag.uuid(run: 0xDEAD_BEEF, shard: 3, counter: counter, random: random)
            let (run, shard, parsed) = QuestionTag.parse(id, random: random)
            #expect(run == 0xDEAD_BEEF && shard == 3 && parsed == counter)
        }
    }

    @Test func sequentialIdsAscendAndRandomOnesDoNot() {
        let counters = UInt64(0)..<1_000
        let sequential = counters.map { Self.bytes(QuestionTag.uuid(run: 7, shard: 1, counter: $0)) }
        let random = counters.map { Self.bytes(QuestionTag.uuid(run: 7, shard: 1, counter: $0, random: true)) }
        #expect(zip(sequential, sequential.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
        let ascending = zip(random, random.dropFirst()).filter { $0.lexicographicallyPrecedes($1) }.count
        #expect((300...700).contains(ascending), "about half of neighbours ascend: \(ascending)")
        #expect(Set(random.map(\.first)).count > 200, "first bytes spread over the id space")
        #expect(Set(random).count == random.count)
    }

    @Test func anotherRunsIdIsNotTakenForThisRunsOwn() {
        let id = QuestionTag.uuid(run: 8, shard: 1, counter: 42, random: true)
        #expect(QuestionTag.parse(id, random: true).run == 8)
        #expect(QuestionTag.parse(id, random: false).run != 8)
    }
}
