/// Which flow `askSignificantChangePermission(for:permissionFlow:in:)` runs. Hearth has no UI: each flow is the
/// path through the daemons that Apple's sheet would start.
public enum PermissionFlow: Sendable, Hashable {
    /// Apple shows the "Ask to Approve / Approve in Person / Cancel" alert first. Hearth sends the question to the
    /// parents, who may answer remotely or approve in person on the child's device; the call returns once it is sent.
    case acknowledgmentAlert
    /// Approve on the spot: the question is sent, and the call waits until a parent types the Screen Time passcode
    /// on the child's device to approve or decline (`hearthctl child approve-in-person`, `decline-in-person`), or
    /// answers remotely, or the question expires.
    case approveInPerson
    /// Ask the parents remotely: the question is sent, and the call returns once the daemon has taken it.
    case askToApprove
}
