import Foundation

extension AskFailure {
    /// Why PermissionKit is not available: a `code` to compare with and the detail it carries. A struct, not an enum,
    /// so that a later version can add reasons without breaking an app's `switch` (postgres-nio's `PSQLError` does the
    /// same): compare codes (`reason.code == .timedOut`) and keep a default for the ones you do not handle.
    public struct NotAvailableReason: Sendable, Hashable, CustomStringConvertible {
        /// Which reason it is.
        public struct Code: Sendable, Hashable, CustomStringConvertible {
            public let description: String

            private init(_ name: String) { description = name }

            /// The device's user is not a child: PermissionKit questions are for children only.
            public static let notAChild = Code("notAChild")
            /// Nothing listens at the child-device daemon's socket.
            public static let daemonNotRunning = Code("daemonNotRunning")
            /// The daemon did not answer within the deadline.
            public static let timedOut = Code("timedOut")
            /// The connection to the daemon closed while the request waited, e.g. because `close()` was called.
            public static let connectionClosed = Code("connectionClosed")
            /// The connection to the daemon could not be set up, e.g. an ipc path too long for a Unix socket.
            public static let connectionFailed = Code("connectionFailed")
            /// The daemon is not linked to the family broker and cannot take the question now.
            public static let brokerUnavailable = Code("brokerUnavailable")
            /// The daemon refused this app or this request.
            public static let notAuthorized = Code("notAuthorized")
            /// The daemon refused the app's hello, so it cannot ask anything.
            public static let helloRefused = Code("helloRefused")
            /// Too many requests; retry later.
            public static let rateLimited = Code("rateLimited")
            /// The daemon speaks a protocol version or message set this library does not.
            public static let incompatibleDaemon = Code("incompatibleDaemon")
        }

        public let code: Code
        /// The daemon's own words, or what failed, for the reasons that have them.
        public let message: String?
        /// The daemon's socket, for the reasons about reaching it.
        public let socketPath: String?
        /// The deadline that passed, for `timedOut`.
        public let seconds: Double?
        /// A sentence saying what is unavailable and, where it helps, what to do.
        public let description: String

        private init(
            _ code: Code, message: String? = nil, socketPath: String? = nil, seconds: Double? = nil, _ text: String
        ) {
            self.code = code
            self.message = message
            self.socketPath = socketPath
            self.seconds = seconds
            description = text
        }

        public static func notAChild(message: String) -> Self {
            Self(
                .notAChild, message: message,
                "the user is not a child; PermissionKit questions are for children only (\(message))")
        }

        public static func daemonNotRunning(socketPath path: String) -> Self {
            Self(
                .daemonNotRunning, socketPath: path,
                "no child-device daemon is listening at \(path); start child-device or set HEARTH_CHILD_SOCKET")
        }

        public static func timedOut(socketPath path: String, seconds: Double) -> Self {
            Self(
                .timedOut, socketPath: path, seconds: seconds,
                "the child-device daemon at \(path) did not answer within \(seconds) s")
        }

        public static func connectionClosed(socketPath path: String) -> Self {
            Self(.connectionClosed, socketPath: path, "the connection to the child-device daemon at \(path) was closed")
        }

        public static func connectionFailed(socketPath path: String, reason: String) -> Self {
            Self(
                .connectionFailed, message: reason, socketPath: path,
                "cannot connect to the child-device daemon at \(path): \(reason)")
        }

        public static func brokerUnavailable(message: String) -> Self {
            Self(
                .brokerUnavailable, message: message,
                "the child-device daemon cannot reach the family broker (\(message))")
        }

        public static func notAuthorized(message: String) -> Self {
            Self(.notAuthorized, message: message, "the child-device daemon refused the request (\(message))")
        }

        public static func helloRefused(message: String) -> Self {
            Self(.helloRefused, message: message, "the child-device daemon refused this app (\(message))")
        }

        public static func rateLimited(message: String) -> Self {
            Self(.rateLimited, message: message, "too many requests; retry later (\(message))")
        }

        public static func incompatibleDaemon(message: String) -> Self {
            Self(
                .incompatibleDaemon, message: message,
                "the child-device daemon speaks an incompatible protocol (\(message))")
        }
    }
}
