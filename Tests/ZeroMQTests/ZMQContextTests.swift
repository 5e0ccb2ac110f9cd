import Foundation
import Synchronization
import Testing
import ZeroMQ

@Suite struct ZMQContextTests {
    /// Carries a result out of a detached thread.
    final class Box<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    @Test func shutdownInterruptsBlockingReceiveAndTerminateReturns() throws {
        let context = try ZMQContext()
        let outcome = Box<Result<ZMQMessage?, ZMQError>?>(nil)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        // ZMQSocket is not Sendable, so the blocked socket lives entirely on its own thread.
        Thread.detachNewThread {
            defer { finished.signal() }
            do {
                let socket = try makeSocket(context, .pull)
                defer { socket.close() }
                try socket.bind("inproc://blocked")
                started.signal()
                let message = try socket.receive()
                outcome.value.withLock { $0 = .success(message) }
            } catch let error as ZMQError {
                outcome.value.withLock { $0 = .failure(error) }
            } catch {}
        }
        #expect(started.wait(timeout: .now() + 2) == .success)
        Thread.sleep(forTimeInterval: 0.05)
        context.shutdown()
        #expect(finished.wait(timeout: .now() + 2) == .success)
        let result = try #require(outcome.value.withLock { $0 })
        guard case .failure(let error) = result else {
            Issue.record("receive returned \(result) instead of ETERM")
            return
        }
        #expect(error.isTerminated)

        let terminated = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            context.terminate()
            context.terminate()
            terminated.signal()
        }
        #expect(terminated.wait(timeout: .now() + 2) == .success)
        #expect(throws: ZMQError.self) { try ZMQSocket(context: context, type: .pair) }
    }

    /// The broker's settings for many connections: receive without zero-copy, TCP keepalive, a long listen queue.
    /// Messages small and large (past the 8 KiB receive buffer) still arrive whole, over a CURVE connection.
    @Test func messagesArriveWholeWithZeroCopyReceiveOffAndKeepalive() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        try context.setZeroCopyReceive(false)
        let serverKeys = try CurveKeyPair.generate()
        let server = try makeSocket(context, .router)
        defer { server.close() }
        try server.makeCurveServer(secretKey: serverKeys.secretKey)
        try server.setTCPKeepalive(idleSeconds: 10, intervalSeconds: 5, count: 2)
        try server.setBacklog(4096)
        try server.bind("tcp://127.0.0.1:0")
        let client = try makeSocket(context, .dealer)
        defer { client.close() }
        try client.makeCurveClient(serverPublicKey: serverKeys.publicKey, keys: try CurveKeyPair.generate())
        try client.setHeartbeat(intervalMilliseconds: 100, timeoutMilliseconds: 300, ttlMilliseconds: 0)
        try client.connect(try server.lastEndpoint)
        for size in [10, 100, 8_000, 100_000] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try client.send([payload])
            let message = try #require(try receive(server))
            #expect(message.frames.last == payload, "\(size) bytes")
        }
        // The server answers the client's PINGs (it sends none itself): the connection is still up after several.
        Thread.sleep(forTimeInterval: 0.5)
        try client.send([[1, 2, 3]])
        #expect(try receive(server)?.frames.last == [1, 2, 3])
    }
}
