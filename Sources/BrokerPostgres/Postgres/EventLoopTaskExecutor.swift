#if PostgreSQL
import NIOCore
import Synchronization

/// A task executor that runs its jobs on one NIO event loop, in the order they were enqueued.
///
/// postgres-nio executes a prepared statement only through an `async` call. A task preferring this executor makes that
/// call on the connection's own event loop: the statement is written to the channel in the same loop turn as the
/// unnamed statements sent before it (so a connection's statements keep the order the writer sent them in), and its
/// rows are collected there, with no hop through the cooperative pool.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    private init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Kept for the process's life: a task does not retain its preferred executor, and event loops are few.
    private static let executors = Mutex<[ObjectIdentifier: EventLoopTaskExecutor]>([:])

    /// The executor of `eventLoop`.
    static func on(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        executors.withLock { executors in
            if let executor = executors[ObjectIdentifier(eventLoop)] { return executor }
            let executor = EventLoopTaskExecutor(eventLoop: eventLoop)
            executors[ObjectIdentifier(eventLoop)] = executor
            return executor
        }
    }
}
#endif
