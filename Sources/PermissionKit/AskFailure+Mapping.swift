import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

extension AskFailure {
    /// The `AskFailure` for an error reply of the child-device daemon.
    init(_ reply: ErrorReply) {
        let message = reply.message
        switch reply.code {
        case .invalidQuestion, .invalidChoice, .expired, .alreadyAnswered, .questionTooLarge, .withdrawn:
            self = .invalidQuestion(reason: message)
        case .notAvailable: self = .notAvailable(reason: .notAChild(message: message))
        case .notAuthorized: self = .notAvailable(reason: .notAuthorized(message: message))
        case .helloRequired: self = .notAvailable(reason: .helloRefused(message: message))
        case .brokerUnavailable: self = .notAvailable(reason: .brokerUnavailable(message: message))
        case .rateLimited: self = .notAvailable(reason: .rateLimited(message: message))
        case .unsupportedVersion, .unknownMessageType:
            self = .notAvailable(reason: .incompatibleDaemon(message: message))
        case .malformedMessage, .notFound, .internalError, .unknown, .invalidRequest, .lockedOut, .wrongPasscode,
            .invalidAgeRequest, .ageNotDeclared, .invalidCursor:
            self = .unknown(reason: reply.description)
        case .deviceNotEnrolled: self = .notAvailable(reason: .notAuthorized(message: message))
        case .invalidText:
            let violation = ShortText.Violation(parsing: message)
            self = .invalidText(field: violation?.field ?? "question.note", reason: violation?.reason ?? message)
        case .misleadingChoice:
            let violation = ShortText.Violation(parsing: message)
            self = .misleadingChoice(
                field: violation?.field ?? "question.choices", reason: violation?.reason ?? message)
        }
    }

    /// The `AskFailure` for any failure of a request to the daemon at `socketPath`.
    init(_ error: any Error, socketPath: String) {
        switch error {
        case let error as AskFailure: self = error
        case let reply as ErrorReply: self.init(reply)
        case let transport as TransportError:
            switch transport {
            case .timeout(_, let seconds):
                // A socket file with nobody behind it (a crashed daemon) times out too; the missing file is the clearer hint.
                self = .notAvailable(
                    reason: ChildDeviceConnection.socketExists(socketPath)
                        ? .timedOut(socketPath: socketPath, seconds: seconds)
                        : .daemonNotRunning(socketPath: socketPath))
            case .closed: self = .notAvailable(reason: .connectionClosed(socketPath: socketPath))
            case .unexpectedReply: self = .unknown(reason: transport.description)
            }
        default: self = .notAvailable(reason: .connectionFailed(socketPath: socketPath, reason: "\(error)"))
        }
    }
}
