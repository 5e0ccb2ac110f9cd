/// How `askSignificantChangePermission(for:permissionFlow:in:)` ended.
public enum PermissionResult: Sendable, Hashable {
    /// A parent answered in person on the child's device, after typing the Screen Time passcode: `approved` is true
    /// when they approved (`hearthctl child approve-in-person`), false when they declined (`hearthctl child
    /// decline-in-person`). A parent who answers from their own device does so remotely: the flow returns
    /// `askToApprove`.
    case approveInPerson(approved: Bool)
    /// The question went to the parents (`didSend` true); their answer comes later through `responses(for:)`.
    case askToApprove(didSend: Bool)
    /// The flow was cancelled (the calling task was cancelled while waiting); the question was withdrawn.
    case cancel
}
