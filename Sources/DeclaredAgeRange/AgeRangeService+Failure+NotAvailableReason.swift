import Foundation

extension AgeRangeService.Failure {
    /// Why Declared Age Range is not available: a `code` to compare with and the detail it carries. A struct, not an
    /// enum, so that a later version can add reasons without breaking an app's `switch`: compare codes
    /// (`reason.code == .noAccount`) and keep a default for the ones you do not handle.
    public struct NotAvailableReason: Sendable, Hashable, CustomStringConvertible {
        /// Which reason it is.
        public struct Code: Sendable, Hashable, CustomStringConvertible {
            public let description: String

            private init(_ name: String) { description = name }

            /// The device's account has no age: its member has no birth date on record.
            public static let noAccount = Code("noAccount")
            /// The broker does not know this device: its key is not enrolled.
            public static let deviceNotEnrolled = Code("deviceNotEnrolled")
            /// The device daemon could not reach the family broker before its deadline.
            public static let brokerUnreachable = Code("brokerUnreachable")
            /// Nothing listens at the device daemon's socket.
            public static let daemonNotRunning = Code("daemonNotRunning")
            /// The device daemon did not answer within the deadline.
            public static let timedOut = Code("timedOut")
            /// The connection to the daemon closed while the request waited, e.g. because `close()` was called.
            public static let connectionClosed = Code("connectionClosed")
            /// The daemon speaks a protocol this library does not, or answered something unexpected.
            public static let incompatibleDaemon = Code("incompatibleDaemon")
            /// The daemon or broker refused or failed; `message` is its word.
            public static let refused = Code("refused")
            /// Too many of these requests from this app lately (acknowledgments: 10 an hour); try again later.
            public static let rateLimited = Code("rateLimited")
        }

        public let code: Code
        /// The daemon's or broker's own words, for the reasons that have them.
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

        public static func noAccount(message: String) -> Self {
            Self(.noAccount, message: message, "no account with an age on this device (\(message))")
        }

        public static func deviceNotEnrolled(message: String) -> Self {
            Self(
                .deviceNotEnrolled, message: message, "this device is not enrolled with the family broker (\(message))")
        }

        public static func brokerUnreachable(message: String) -> Self {
            Self(.brokerUnreachable, message: message, "the family broker is unreachable (\(message))")
        }

        public static func daemonNotRunning(socketPath path: String) -> Self {
            Self(
                .daemonNotRunning, socketPath: path,
                "no device daemon is listening at \(path); start child-device or parent-device, or set HEARTH_DEVICE_SOCKET"
            )
        }

        public static func timedOut(socketPath path: String, seconds: Double) -> Self {
            Self(
                .timedOut, socketPath: path, seconds: seconds,
                "the device daemon at \(path) did not answer within \(seconds) s")
        }

        public static func connectionClosed(socketPath path: String) -> Self {
            Self(.connectionClosed, socketPath: path, "the connection to the device daemon at \(path) was closed")
        }

        public static func incompatibleDaemon(message: String) -> Self {
            Self(
                .incompatibleDaemon, message: message, "the device daemon speaks an incompatible protocol (\(message))")
        }

        public static func rateLimited(message: String) -> Self {
            Self(.rateLimited, message: message, "too many requests from this app lately (\(message))")
        }

        public static func refused(message: String) -> Self {
            Self(.refused, message: message, "the request was refused (\(message))")
        }
    }
}
