import Foundation
import HearthProtocol
import HearthTransport

extension AgeRangeService {
    /// Why an age range request failed. Unlike Apple's, every case says which rule or what was unavailable.
    public enum Error: Swift.Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
        /// The request itself is wrong; `reason` names the rule (count, order, a range under 2 years…).
        case invalidRequest(reason: String)
        /// Declared Age Range cannot answer on this device now; `reason` says why.
        case notAvailable(reason: NotAvailableReason)

        /// Why Declared Age Range is not available.
        public enum NotAvailableReason: Sendable, Hashable, CustomStringConvertible {
            /// The device's account has no age: its member has no birth date on record.
            case noAccount(message: String)
            /// The broker does not know this device: its key is not enrolled.
            case deviceNotEnrolled(message: String)
            /// The device daemon could not reach the family broker before its deadline.
            case brokerUnreachable(message: String)
            /// Nothing listens at the device daemon's socket.
            case daemonNotRunning(socketPath: String)
            /// The device daemon did not answer within the deadline.
            case timedOut(socketPath: String, seconds: Double)
            /// The connection to the daemon closed while the request waited, e.g. because `close()` was called.
            case connectionClosed(socketPath: String)
            /// The daemon speaks a protocol this library does not, or answered something unexpected.
            case incompatibleDaemon(message: String)
            /// The daemon or broker refused or failed; `message` is its word.
            case refused(message: String)

            public var description: String {
                switch self {
                case .noAccount(let message): "no account with an age on this device (\(message))"
                case .deviceNotEnrolled(let message): "this device is not enrolled with the family broker (\(message))"
                case .brokerUnreachable(let message): "the family broker is unreachable (\(message))"
                case .daemonNotRunning(let path):
                    "no device daemon is listening at \(path); start child-device or parent-device, or set HEARTH_DEVICE_SOCKET"
                case .timedOut(let path, let seconds): "the device daemon at \(path) did not answer within \(seconds) s"
                case .connectionClosed(let path): "the connection to the device daemon at \(path) was closed"
                case .incompatibleDaemon(let message): "the device daemon speaks an incompatible protocol (\(message))"
                case .refused(let message): "the request was refused (\(message))"
                }
            }
        }

        public var description: String {
            switch self {
            case .invalidRequest(let reason): "invalid age range request: \(reason)"
            case .notAvailable(let reason): "Declared Age Range is not available: \(reason)"
            }
        }

        public var errorDescription: String? { description }

        /// The error for an error reply of the daemon.
        init(_ reply: ErrorReply) {
            let message = reply.message
            switch reply.code {
            case .invalidAgeRequest: self = .invalidRequest(reason: message)
            case .ageNotDeclared: self = .notAvailable(reason: .noAccount(message: message))
            case .deviceNotEnrolled: self = .notAvailable(reason: .deviceNotEnrolled(message: message))
            case .brokerUnavailable: self = .notAvailable(reason: .brokerUnreachable(message: message))
            case .unsupportedVersion, .unknownMessageType: self = .notAvailable(reason: .incompatibleDaemon(message: message))
            default: self = .notAvailable(reason: .refused(message: reply.description))
            }
        }

        /// The error for any failure of a request to the daemon at `socketPath`.
        init(_ error: any Swift.Error, socketPath: String) {
            switch error {
            case let error as AgeRangeService.Error: self = error
            case let reply as ErrorReply: self.init(reply)
            case let transport as TransportError:
                switch transport {
                case .timeout(_, let seconds):
                    self = .notAvailable(reason: LocalEndpoints.socketExists(socketPath)
                        ? .timedOut(socketPath: socketPath, seconds: seconds) : .daemonNotRunning(socketPath: socketPath))
                case .closed: self = .notAvailable(reason: .connectionClosed(socketPath: socketPath))
                case .unexpectedReply: self = .notAvailable(reason: .incompatibleDaemon(message: transport.description))
                }
            default: self = .notAvailable(reason: .refused(message: "\(error)"))
            }
        }
    }
}
