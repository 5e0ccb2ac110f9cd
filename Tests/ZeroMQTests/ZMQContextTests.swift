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
}
