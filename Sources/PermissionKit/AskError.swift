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
    /// Communication Limits are off. Hearth never throws it: the question gets its default response instead, as
    /// the talk describes for a child whose parents did not turn them on.
    case communicationLimitsNotEnabled
    /// The child's contacts are not synced. Hearth never throws it: contacts live in the family file.
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
