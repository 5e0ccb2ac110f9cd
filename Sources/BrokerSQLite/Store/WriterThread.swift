import Foundation
import HearthCore
import Synchronization

/// A task executor of one thread of its own, for the broker's writer stage.
///
/// On the cooperative pool a batch crossed three threads: the pool's task handed the transaction to GRDB's writer
/// queue, whose thread committed it and resumed the task on the pool again to send the replies. Each crossing is a
/// wake-up, and at moderate rates, where a batch holds a command or two, the wake-ups cost more than the commit's
/// statements. A task preferring this executor runs here, and the SQLite store runs its transaction inline on this
/// thread (`isCurrent`), where blocking on the disk stops nothing else.
package final class WriterThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var finished = false

    /// Every running writer thread's id: `isCurrent` answers for whichever thread asks.
    private static let running = Mutex<Set<pthread_t>>([])

    /// Starts the thread, named `name` (at most 15 bytes: as `/proc` and profilers show it).
    package init(name: String) {
        Thread.detachNewThread { [self] in
            // Not Foundation's `Thread.name`, which on Linux leaves the OS thread with its creator's name.
            ThreadName.set(name)
            run()
        }
    }

    /// Whether the calling thread is a writer thread, where a task may block.
    package static var isCurrent: Bool {
        let me = pthread_self()
        return running.withLock { $0.contains(me) }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        condition.lock()
        if finished {
            condition.unlock()
            // Not lost with the thread: elsewhere `isCurrent` is false, so nothing run there blocks on the disk.
            globalConcurrentExecutor.enqueue(job)
            return
        }
        jobs.append(UnownedJob(job))
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs already enqueued ran; a job enqueued later runs on the global executor. Until
    /// then the thread waits for jobs, so every writer thread started must be stopped.
    package func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        let me = pthread_self()
        _ = Self.running.withLock { $0.insert(me) }
        defer { _ = Self.running.withLock { $0.remove(me) } }
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                finished = true
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
