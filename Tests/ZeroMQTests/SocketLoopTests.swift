import Foundation
import Testing

@testable import ZeroMQ

/// The I/O thread bridge: messages cross between the loop thread and async code, and shutdown never hangs.
@Suite("SocketLoop")
struct SocketLoopTests {
    static func pair(_ endpoint: String) throws -> (server: SocketLoop, client: SocketLoop) {
        let server = try SocketLoop(
            name: "test-server",
            sockets: [
                .init(.router) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.bind(endpoint)
                }
            ])
        let client = try SocketLoop(
            name: "test-client",
            sockets: [
                .init(.dealer) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.connect(endpoint)
                }
            ])
        return (server, client)
    }

    /// The next batch the loop delivers, or a timeout error: a failing test never hangs.
    static func nextBatch(
        _ loop: SocketLoop, within timeout: Duration = .seconds(5)
    ) async throws -> [SocketLoop.Inbound] {
        try await withThrowingTaskGroup(of: [SocketLoop.Inbound]?.self) { group in
            group.addTask { await loop.inbound.take() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let batch = first else {
                throw ZMQError(code: ETIMEDOUT, operation: "nextBatch")
            }
            return batch
        }
    }

    static func next(_ loop: SocketLoop) async throws -> SocketLoop.Inbound {
        let batch = try await nextBatch(loop)
        #expect(batch.count == 1)
        return batch[0]
    }

    @Test func megabyteRoundTripsThroughTheLoops() async throws {
        let endpoint =
            "ipc://"
            + FileManager.default.temporaryDirectory.appendingPathComponent("loop-\(UUID().uuidString.prefix(8)).sock")
            .path
        let (server, client) = try Self.pair(endpoint)
        try await server.start()
        try await client.start()
        let big = (0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(client.send([big], on: 0))
        let request = try await Self.next(server)
        #expect(request.message.frames.count == 2)
        #expect(request.message.frames[1] == big)
        server.send([request.message.frames[0], Array("pong".utf8)], on: 0)
        let reply = try await Self.next(client)
        #expect(reply.message.frames == [Array("pong".utf8)])
        await client.stop()
        await server.stop()
    }

    @Test func burstArrivesAsBatchesInOrder() async throws {
        let endpoint = "inproc://burst"
        let server = try SocketLoop(
            name: "burst",
            sockets: [
                .init(.pull) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.bind(endpoint)
                },
                .init(.push) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.connect(endpoint)
                },
            ])
        try await server.start()
        // Below the default high-water marks: the loop's sends never block, so none is dropped.
        let count = 800
        for i in 0..<count { server.send([withUnsafeBytes(of: UInt32(i).bigEndian) { Array($0) }], on: 1) }
        var received: [UInt32] = []
        var batches = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while received.count < count, ContinuousClock.now < deadline {
            let batch = try await Self.nextBatch(server, within: .seconds(2))
            batches += 1
            received += batch.map { $0.message.frames[0].reduce(0) { $0 << 8 | UInt32($1) } }
        }
        #expect(received == Array(0..<UInt32(count)))
        #expect(batches < count, "a consumer takes everything buffered at once")
        await server.stop()
    }

    @Test func stopIsPromptEvenWithAPeerGoneAndQueuedSends() async throws {
        let endpoint = "tcp://127.0.0.1:1"  // nothing listens: sends can only queue
        let client = try SocketLoop(
            name: "lonely",
            sockets: [
                .init(.dealer) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.connect(endpoint)
                }
            ])
        try await client.start()
        for _ in 0..<100 { client.send([[1, 2, 3]], on: 0) }
        let started = ContinuousClock.now
        await client.stop()
        await client.stop()  // idempotent
        // A hang detector, not a benchmark: with the wrong linger, terminating the context would block forever. The
        // whole suite beside it on two cores once took 17 s to resume this task, hence the wide bound.
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(client.send([[1]], on: 0) == false, "a stopped loop refuses sends")
        #expect(await client.inbound.take() == nil, "a stopped loop's inbound sequence ends")
    }

    @Test func configurationErrorIsThrownFromStart() async throws {
        let loop = try SocketLoop(
            name: "bad",
            sockets: [
                .init(.router) { socket in try socket.bind("bogus://nowhere") }
            ])
        await #expect(throws: ZMQError.self) { try await loop.start() }
    }
}
