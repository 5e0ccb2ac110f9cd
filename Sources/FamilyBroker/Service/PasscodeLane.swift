import Foundation
import HearthCore

/// Passcode commands' scrypt, beside the broker's pipeline, on a thread of its own: not the cooperative pool (whose
/// few threads every task shares) and not the writer's (whose batch every command waits on). A passcode command is
/// hashed here and enters the writer once its hash is ready; the commands read with it go on meanwhile.
///
/// One thread, first come first served: each scrypt run takes 32 MiB at the default cost, so hashes never run side
/// by side, and at most `capacity` wait; past it a passcode command is refused at once (its device tries again).
final class PasscodeLane: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var stopping = false

    /// Passcode commands waiting for the lane, at most.
    static let capacity = 64

    /// Starts the thread, named `name` (at most 15 bytes).
    init(name: String) {
        Thread.detachNewThread { [self] in
            ThreadName.set(name)
            run()
        }
    }

    /// Runs `body` on the lane's thread after the work queued before it; nil, without running it, when `capacity`
    /// jobs wait already or the lane stopped.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            condition.lock()
            guard !stopping, jobs.count < Self.capacity else {
                condition.unlock()
                continuation.resume(returning: nil)
                return
            }
            jobs.append { continuation.resume(returning: body()) }
            condition.signal()
            condition.unlock()
        }
    }

    /// Ends the thread once the work already queued ran; later work is refused. Every lane started must be stopped.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
