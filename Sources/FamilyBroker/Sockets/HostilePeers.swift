import Foundation
import HearthCore
import Logging
import ZeroMQ

/// What the broker does with an enrolled device that sends what no device sends (the `Gate` decides what that is):
/// the connection it came on is dropped, its key is refused for `CutOffBook.duration` (as a revocation does, without
/// revoking), and it is counted and logged once per cut-off. Memory libzmq held for it is handed back to the system.
struct HostilePeers: Sendable {
    let book: CutOffBook
    /// Counts a cut-off (the service's metrics), on the events socket or the commands one.
    let counted: @Sendable (_ onEvents: Bool) -> Void
    let logger: Logger

    /// Cuts `device` off for `reason`; false if it already was (counted and logged then).
    @discardableResult
    func cutOff(_ device: DeviceID, reason: String, onEvents: Bool) -> Bool {
        guard book.cutOff(device) else { return false }
        counted(onEvents)
        logger.warning(
            "cut off a hostile device",
            metadata: [
                "device": "\(device)", "reason": "\(reason)", "socket": "\(onEvents ? "events" : "commands")",
                "seconds": "\(book.duration.components.seconds)",
            ])
        Self.releaseFreedMemory()
        return true
    }

    /// Drops the connection a message came in on. On the socket loop's thread, like every call on `socket`.
    static func drop(_ message: ZMQMessage, from socket: ZMQSocket) {
        socket.dropPeer(descriptor: message.sourceDescriptor)
    }

    /// glibc keeps freed pages resident: what libzmq held for a hostile peer (a many-framed message, the prefixes it
    /// asked for) would stay part of the broker's memory for good. libzmq frees it once its I/O thread has closed the
    /// dropped connection and the socket's thread has seen the pipe end, which on a busy machine can take seconds: the
    /// trim runs on a thread of its own (it walks every arena) 1, 3, 7 and 15 s after the cut-off, so one of them
    /// comes after the free.
    private static func releaseFreedMemory() {
        Thread.detachNewThread {
            for delay in Self.trimDelays {
                Thread.sleep(forTimeInterval: delay)
                FreedMemory.release()
            }
        }
    }

    /// Seconds between the trims after a cut-off.
    static let trimDelays: [TimeInterval] = [1, 2, 4, 8]
}
