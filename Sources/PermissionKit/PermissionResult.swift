/// How `askSignificantChangePermission(for:permissionFlow:in:)` ended.
public enum PermissionResult: Sendable, Hashable {
    /// A parent answered in person on the child's device, after typing the Screen Time passcode: `approved` is true
    /// for an approval. Hearth's in-person answer (`hearthctl child approve-in-person`) only approves, so it is
    /// always true here; a parent who declines does so from their own device, and the flow returns `askToApprove`.
    case approveInPerson(approved: Bool)
    /// The question went to the parents (`didSend` true); their answer comes later through `responses(for:)`.
    case askToApprove(didSend: Bool)
    /// The flow was cancelled (the calling task was cancelled while waiting); the question was withdrawn.
    case cancel
}
