import Foundation
import Logging
import ServiceLifecycle

/// Holds the promise that a daemon exits within `bound` of SIGTERM: when graceful shutdown starts it marks the ops
/// endpoint not ready and starts a plain thread that ends the process if it is still running at the bound.
///
/// Ending it then loses nothing acknowledged: replies leave only after their commit, and an unfinished SQLite
/// transaction rolls back.
final class ShutdownWatchdog: Service, Sendable {
    let bound: Duration
    let ops: OpsServer?
    let logger: Logger

    init(bound: Duration, ops: OpsServer?, logger: Logger) {
        self.bound = bound
        self.ops = ops
        self.logger = logger
    }

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: the group is ending for another reason
        }
        ops?.markStopping()
        logger.info("shutting down", metadata: ["bound": "\(bound)"])
        let seconds = Double(bound.components.seconds) + Double(bound.components.attoseconds) / 1e18
        let logger = self.logger
        // A thread, not a task: it must fire even if the cooperative pool is stuck.
        let thread = Thread {
            Thread.sleep(forTimeInterval: seconds)
            logger.critical("shutdown did not finish within its bound; exiting now", metadata: ["bound": "\(seconds)s"])
            _exit(DaemonRunner.exitShutdownTimeout)
        }
        thread.start()
    }
}
