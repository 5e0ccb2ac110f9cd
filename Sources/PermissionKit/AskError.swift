public import Foundation

/// Why an ask could not start, in Apple's shape: the cases carry no detail (but `systemError`'s underlying error).
///
/// Apple's spellings throw it: `AskCenter.ask(_:in:)`, `askSignificantChangePermission(for:permissionFlow:in:)` and
/// `CommunicationLimits.ask(_:in:)`. For the detail (which rule the question broke, why PermissionKit is not
/// available), call Hearth's `ask(_:)` or `validate()`, which throw `AskFailure`; `AskError(failure)` is the case
/// Apple's spellings throw for it.
public enum AskError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// Something unexpected failed: the daemon answered what this library does not understand.
    case unknown
    /// The child's Communication Limits are off: a communication question asked through Apple's spellings is
    /// refused, with nothing stored or sent. (Hearth's `CommunicationLimits.ask(_:)` gives the question's default
    /// response instead, as the talk describes.)
    case communicationLimitsNotEnabled
    /// The child-device has not synced with its broker yet (it was never welcomed, so it has neither the child's
    /// contacts nor the people parents approved): a communication question asked through Apple's spellings is
    /// refused, with nothing stored or sent.
    case contactSyncNotSetup
    /// The question breaks a rule: no people, a default not among the choices, expired, too large, a bad note.
    case invalidQuestion
    /// PermissionKit does not serve this user: the device's user is not a child.
    case notAvailable
    /// The system failed: the daemon is not running, timed out, refused the app, or cannot reach its broker.
    /// `underlyingError` is the `AskFailure` saying which.
    case systemError(underlyingError: any Error)

    /// The case Apple's spellings throw for `failure`.
    public init(_ failure: AskFailure) {
        switch failure {
        case .communicationLimitsNotEnabled: self = .communicationLimitsNotEnabled
        case .contactSyncNotSetup: self = .contactSyncNotSetup
        case .invalidQuestion, .questionTooLarge, .invalidText, .misleadingChoice: self = .invalidQuestion
        case .notAvailable(let reason) where reason.code == .notAChild: self = .notAvailable
        case .notAvailable: self = .systemError(underlyingError: failure)
        case .unknown: self = .unknown
        }
    }

    /// A sentence saying what went wrong; for `systemError`, the underlying error's.
    public var description: String {
        switch self {
        case .unknown: "ask failed for an unknown reason"
        case .communicationLimitsNotEnabled: "Communication Limits are not enabled"
        case .contactSyncNotSetup: "contact sync is not set up"
        case .invalidQuestion: "the question is invalid; validate() names the rule it breaks"
        case .notAvailable: "PermissionKit is not available: the user is not a child"
        case .systemError(let underlying): "the system failed: \(underlying)"
        }
    }

    /// The same text as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}

extension AskFailure {
    /// The case of Apple's `AskError` this failure becomes in Apple's spellings.
    public var askError: AskError { AskError(self) }
}
