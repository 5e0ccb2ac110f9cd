import Foundation
import HearthService
import Testing

@Suite struct BlockingWorkTests {
    struct Refused: Error, Equatable {
        let reason: String
    }

    /// More blocked bodies than the cooperative pool has threads, each released only by a task on that pool: if the
    /// bodies ran on the pool, the releasing task would never run and each body would give up after 30 s.
    @Test func blockedBodiesLeaveTheCooperativePoolFree() async {
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let released = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    await BlockingWork.run {
                        started.signal()
                        return release.wait(timeout: .now() + 30) == .success
                    }
                }
            }
            group.addTask {
                // Polled, not waited for: this task must not block the pool itself.
                var seen = 0
                while seen < count {
                    if started.wait(timeout: .now()) == .success {
                        seen += 1
                    } else {
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                }
                for _ in 0..<count { release.signal() }
                return true
            }
            return await group.reduce(into: 0) { released, ok in released += ok ? 1 : 0 }
        }
        #expect(released == count + 1, "every body was released by the task on the pool")
    }

    @Test func theBodysResultAndErrorComeBack() async throws {
        #expect(try await BlockingWork.run { 6 * 7 } == 42)
        let error = await #expect(throws: Refused.self) {
            try await BlockingWork.run { () throws(Refused) -> Int in throw Refused(reason: "no") }
        }
        #expect(error == Refused(reason: "no"))
    }
}
