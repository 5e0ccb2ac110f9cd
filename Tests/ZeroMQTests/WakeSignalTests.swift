import Foundation
import Testing
import ZeroMQ

@Suite struct WakeSignalTests {
    @Test func signalFromAnotherThreadWakesPoller() throws {
        let wake = try WakeSignal()
        defer { wake.close() }
        var poller = ZMQPoller()
        let index = poller.add(fileDescriptor: wake.fileDescriptor)
        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)

        let signalled = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.05)
            wake.signal()
            wake.signal()
            signalled.signal()
        }
        #expect(try poller.poll(timeoutMilliseconds: 2000) == 1)
        #expect(poller.isReadable(index))

        // The poll may wake on the first signal: drain only after both, or the second one lands after the drain.
        signalled.wait()
        wake.drain()
        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)
        #expect(!poller.isReadable(index))
    }

    @Test func closeIsIdempotent() throws {
        let wake = try WakeSignal()
        #expect(wake.fileDescriptor >= 0)
        wake.close()
        wake.close()
        wake.signal()
        wake.drain()
        #expect(wake.fileDescriptor == -1)
    }
}
