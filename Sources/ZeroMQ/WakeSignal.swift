import CZeroMQ
import Glibc
import Synchronization

/// A non-blocking eventfd that other threads signal to wake a `zmq_poll` loop (add `fileDescriptor` to a `ZMQPoller`).
public final class WakeSignal: Sendable {
    // -1 once closed. Reads and writes happen under the lock so a closed (and possibly reused) fd is never touched.
    private let descriptor: Mutex<Int32>

    /// Creates the eventfd; throws with errno if the kernel refuses.
    public init() throws {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw ZMQError(code: errno, operation: "eventfd") }
        descriptor = Mutex(fd)
    }

    deinit {
        close()
    }

    /// The eventfd to poll for readability; -1 after `close()`.
    public var fileDescriptor: Int32 {
        descriptor.withLock { $0 }
    }

    /// Makes the fd readable until drained. Safe from any thread; a no-op after `close()`.
    public func signal() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            // EAGAIN means the counter is saturated, so the fd is already readable.
            while eventfd_write(fd, 1) != 0, errno == EINTR {}
        }
    }

    /// Consumes all pending signals so the fd is no longer readable.
    public func drain() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            var value: eventfd_t = 0
            while true {
                if eventfd_read(fd, &value) == 0 { continue }
                if errno == EINTR { continue }
                return
            }
        }
    }

    /// Closes the eventfd; idempotent and thread-safe.
    public func close() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            _ = Glibc.close(fd)
            fd = -1
        }
    }
}
