/// How `askSignificantChangePermission(for:permissionFlow:in:)` ended.
public enum PermissionResult: Sendable, Hashable {
    /// A parent approved in person on the child's device (`approved` true) or declined there (`approved` false).
    case approveInPerson(approved: Bool)
    /// The question went to the parents (`didSend` true); their answer comes later through `responses(for:)`.
    case askToApprove(didSend: Bool)
    /// The flow was cancelled (the calling task was cancelled while waiting); the question was withdrawn.
    case cancel
}
