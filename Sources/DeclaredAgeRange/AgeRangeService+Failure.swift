public import Foundation
import HearthProtocol
import HearthTransport

extension AgeRangeService {
    /// Why an age range request failed, in detail: every case says which rule or what was unavailable.
    ///
    /// Hearth's headless `requestAgeRange(ageGates:_:_:)` throws it. Apple's spellings (`requestAgeRange(ageGates:
    /// _:_:in:)`, the module's `requestAgeRange(ageGates:_:_:)`, `requiredRegulatoryFeatures`…) throw Apple's
    /// `AgeRangeService.Error`, whose cases carry no detail; `error` is the case a failure becomes there.
    public enum Failure: Swift.Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
        /// The request itself is wrong; `reason` names the rule (count, order, a range under 2 years…).
        case invalidRequest(reason: String)
        /// Declared Age Range cannot answer on this device now; `reason` says why.
        case notAvailable(reason: NotAvailableReason)

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
            case .invalidAgeRequest, .invalidText: self = .invalidRequest(reason: message)
            case .rateLimited: self = .notAvailable(reason: .rateLimited(message: message))
            case .ageNotDeclared: self = .notAvailable(reason: .noAccount(message: message))
            case .deviceNotEnrolled: self = .notAvailable(reason: .deviceNotEnrolled(message: message))
            case .brokerUnavailable: self = .notAvailable(reason: .brokerUnreachable(message: message))
            case .unsupportedVersion, .unknownMessageType:
                self = .notAvailable(reason: .incompatibleDaemon(message: message))
            default: self = .notAvailable(reason: .refused(message: reply.description))
            }
        }

        /// The error for any failure of a request to the daemon at `socketPath`.
        init(_ error: any Swift.Error, socketPath: String) {
            switch error {
            case let error as AgeRangeService.Failure: self = error
            case let reply as ErrorReply: self.init(reply)
            case let transport as TransportError:
                switch transport {
                case .timeout(_, let seconds):
                    self = .notAvailable(
                        reason: LocalEndpoints.socketExists(socketPath)
                            ? .timedOut(socketPath: socketPath, seconds: seconds)
                            : .daemonNotRunning(socketPath: socketPath))
                case .closed: self = .notAvailable(reason: .connectionClosed(socketPath: socketPath))
                case .unexpectedReply: self = .notAvailable(reason: .incompatibleDaemon(message: transport.description))
                }
            default: self = .notAvailable(reason: .refused(message: "\(error)"))
            }
        }
    }
}
