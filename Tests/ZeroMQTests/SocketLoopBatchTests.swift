import Foundation
import Testing

@testable import ZeroMQ

/// `SocketLoop.send(_:)`: a batch handed over at once still leaves in order on each socket, counts what would have
/// blocked, and is refused once the loop stopped; and the loop's thread carries the loop's name.
@Suite("SocketLoop batches")
struct SocketLoopBatchTests {
    static func number(_ frame: [UInt8]) -> UInt32 { frame.reduce(0) { $0 << 8 | UInt32($1) } }

    static func frame(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    @Test func aBatchLeavesInOrderOnEachSocket() async throws {
        let name = "batch-\(UUID().uuidString.prefix(8))"
        // Two PULL sockets (0, 1) and a PUSH to each (2 to 0, 3 to 1), all on one loop.
        let loop = try SocketLoop(
            name: "batch-order",
            sockets: [0, 1].map { index in
                .init(.pull) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.bind("inproc://\(name)-\(index)")
                }
            }
                + [0, 1].map { index in
                    .init(.push) { socket in
                        try socket.setLinger(milliseconds: 0)
                        try socket.connect("inproc://\(name)-\(index)")
                    }
                })
        try await loop.start()
        // Below the default high-water marks: nothing is dropped. Each socket's share is interleaved with the other's.
        let count: UInt32 = 600
        let batch = (0..<count).map { SocketLoop.Outgoing([Self.frame($0)], on: 2 + Int($0 % 3 == 0 ? 1 : 0)) }
        #expect(loop.send(batch))
        var received: [Int: [UInt32]] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        while received.values.map(\.count).reduce(0, +) < Int(count), ContinuousClock.now < deadline {
            for item in try await SocketLoopTests.nextBatch(loop, within: .seconds(2)) {
                received[item.socket, default: []].append(Self.number(item.message.frames[0]))
            }
        }
        #expect(received[0] == (0..<count).filter { $0 % 3 != 0 })
        #expect(received[1] == (0..<count).filter { $0 % 3 == 0 })
        #expect(loop.droppedCount == 0)
        await loop.stop()
    }

    /// A loop whose one socket is a PUSH without a peer: a send that may not wait has nowhere to go.
    static func pushWithoutPeer(_ name: String) throws -> SocketLoop {
        try SocketLoop(
            name: name,
            sockets: [
                .init(.push) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.bind("inproc://\(name)-\(UUID().uuidString.prefix(8))")
                }
            ])
    }

    @Test func aBatchCountsWhatWouldHaveBlocked() async throws {
        let loop = try Self.pushWithoutPeer("batch-drops")
        try await loop.start()
        #expect(loop.send([.init([[1]], on: 0), .init([[2]], on: 7), .init([[3]], on: 0), .init([[4]], on: 0)]))
        // Runs after the batch: the counts are final.
        try await loop.query { _ in }
        #expect(loop.droppedCount == 3, "three sends would have blocked; the one to a socket the loop lacks is ignored")
        await loop.stop()
    }

    @Test func aStoppedLoopRefusesBatches() async throws {
        let loop = try Self.pushWithoutPeer("batch-stopped")
        try await loop.start()
        #expect(loop.send([]))
        await loop.stop()
        #expect(loop.send([]) == false)
        #expect(loop.send([.init([[1]], on: 0)]) == false)
    }

    @Test func theLoopThreadCarriesTheLoopsName() async throws {
        let loop = try SocketLoop(name: "a-loop-with-a-long-name", sockets: [])
        try await loop.start()
        let name = try await loop.query { _ in
            try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Linux keeps 15 bytes of a thread's name.
        #expect(name == "a-loop-with-a-l")
        await loop.stop()
    }
}
