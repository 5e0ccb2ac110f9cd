import Foundation

/// Why an ask could not start. Unlike Apple's, every case says which rule was broken or what was unreachable.
public enum AskError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// Apple's case, kept for source compatibility. Hearth never throws it: with limits off, the question gets the
    /// default response through `updates` instead.
    case communicationLimitsNotEnabled
    /// Apple's case, kept for source compatibility. Hearth never throws it.
    case contactSyncNotSetup
    /// The question breaks a rule; `reason` names it (no handles, default not among the choices, expired…).
    case invalidQuestion(reason: String)
    /// The question's encoding (`bytes`) is over its budget (`budget`, docs/PROTOCOL.md §4.1), with its avatar images
    /// and names; `largestField` names its largest field, such as `topic.personInformation[0].avatarImage`.
    case questionTooLarge(bytes: Int, budget: Int, largestField: String)
    /// PermissionKit cannot serve this app now; `reason` says why.
    case notAvailable(reason: NotAvailableReason)
    /// Something unexpected failed; `reason` says what.
    case unknown(reason: String)

    /// Why PermissionKit is not available.
    public enum NotAvailableReason: Sendable, Hashable, CustomStringConvertible {
        /// The device's user is not a child: PermissionKit questions are for children only.
        case notAChild(message: String)
        /// Nothing listens at the child-device daemon's socket.
        case daemonNotRunning(socketPath: String)
        /// The daemon did not answer within the deadline.
        case timedOut(socketPath: String, seconds: Double)
        /// The connection to the daemon closed while the request waited, e.g. because `close()` was called.
        case connectionClosed(socketPath: String)
        /// The connection to the daemon could not be set up, e.g. an ipc path too long for a Unix socket.
        case connectionFailed(socketPath: String, reason: String)
        /// The daemon is not linked to the family broker and cannot take the question now.
        case brokerUnavailable(message: String)
        /// The daemon refused this app or this request.
        case notAuthorized(message: String)
        /// The daemon refused the app's hello, so it cannot ask anything.
        case helloRefused(message: String)
        /// Too many requests; retry later.
        case rateLimited(message: String)
        /// The daemon speaks a protocol version or message set this library does not.
        case incompatibleDaemon(message: String)

        /// A sentence saying what is unavailable and, where it helps, what to do.
        public var description: String {
            switch self {
            case .notAChild(let message):
                "the user is not a child; PermissionKit questions are for children only (\(message))"
            case .daemonNotRunning(let path):
                "no child-device daemon is listening at \(path); start child-device or set HEARTH_CHILD_SOCKET"
            case .timedOut(let path, let seconds):
                "the child-device daemon at \(path) did not answer within \(seconds) s"
            case .connectionClosed(let path): "the connection to the child-device daemon at \(path) was closed"
            case .connectionFailed(let path, let reason): "cannot connect to the child-device daemon at \(path): \(reason)"
            case .brokerUnavailable(let message): "the child-device daemon cannot reach the family broker (\(message))"
            case .notAuthorized(let message): "the child-device daemon refused the request (\(message))"
            case .helloRefused(let message): "the child-device daemon refused this app (\(message))"
            case .rateLimited(let message): "too many requests; retry later (\(message))"
            case .incompatibleDaemon(let message): "the child-device daemon speaks an incompatible protocol (\(message))"
            }
        }
    }

    /// A sentence naming the broken rule or the unreachable daemon.
    public var description: String {
        switch self {
        case .communicationLimitsNotEnabled: "Communication Limits are not enabled"
        case .contactSyncNotSetup: "contact sync is not set up"
        case .invalidQuestion(let reason): "invalid question: \(reason)"
        case .questionTooLarge(let bytes, let budget, let field):
            "invalid question: it is \(bytes) bytes encoded, over its budget of \(budget) bytes; its largest field is "
                + "\(field): use smaller avatar images or fewer people"
        case .notAvailable(let reason): "PermissionKit is not available: \(reason)"
        case .unknown(let reason): "ask failed: \(reason)"
        }
    }

    /// The same text as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
