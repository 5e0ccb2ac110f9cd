public import Foundation

/// Why an ask could not start, in detail: every case says which rule was broken or what was unreachable.
///
/// Hearth's own spellings (`ask(_:)`, `withdraw(_:)`, `validate()`) throw it. Apple's spellings (`ask(_:in:)`,
/// `askSignificantChangePermission(for:permissionFlow:in:)`) throw Apple's `AskError`, whose cases carry no detail;
/// `askError` is the case an `AskFailure` becomes there, and `AskError.systemError(underlyingError:)` carries the
/// `AskFailure` itself when the system (the daemon, its socket) failed.
public enum AskFailure: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// Apple's case, thrown only by Apple's spellings (as `AskError`): Hearth's `ask(_:)` gives the question its
    /// default response when Communication Limits are off.
    case communicationLimitsNotEnabled
    /// Apple's case, thrown only by Apple's spellings (as `AskError`): the child-device has not synced with its
    /// broker yet.
    case contactSyncNotSetup
    /// The question breaks a rule; `reason` names it (no handles, default not among the choices, expired…).
    case invalidQuestion(reason: String)
    /// The question's encoding (`bytes`) is over its budget (`budget`, docs/PROTOCOL.md §4.1), with its avatar images
    /// and names; `largestField` names its largest field, such as `topic.personInformation[0].avatarImage`.
    case questionTooLarge(bytes: Int, budget: Int, largestField: String)
    /// A text field breaks its rules (`ShortText`: length in bytes and characters, control characters); `field` is
    /// its wire name, such as `question.note`, and `reason` the rule.
    case invalidText(field: String, reason: String)
    /// A choice passes for a standard one of the opposite answer (`PermissionChoice.impersonatesStandardChoice`): a
    /// choice titled "Decline" that approves. `field` names it (`question.choices[1]`), `reason` says how.
    case misleadingChoice(field: String, reason: String)
    /// PermissionKit cannot serve this app now; `reason` says why.
    case notAvailable(reason: NotAvailableReason)
    /// Something unexpected failed; `reason` says what.
    case unknown(reason: String)

    /// A sentence naming the broken rule or the unreachable daemon.
    public var description: String {
        switch self {
        case .communicationLimitsNotEnabled: "Communication Limits are not enabled"
        case .contactSyncNotSetup: "contact sync is not set up"
        case .invalidQuestion(let reason): "invalid question: \(reason)"
        case .questionTooLarge(let bytes, let budget, let field):
            "invalid question: it is \(bytes) bytes encoded, over its budget of \(budget) bytes; its largest field is "
                + "\(field): use smaller avatar images or fewer people"
        case .invalidText(let field, let reason): "invalid question: \(field) \(reason)"
        case .misleadingChoice(let field, let reason): "invalid question: \(field): \(reason)"
        case .notAvailable(let reason): "PermissionKit is not available: \(reason)"
        case .unknown(let reason): "ask failed: \(reason)"
        }
    }

    /// The same text as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
