import Foundation
import HearthCore
import HearthProtocol

/// A significant update acknowledged by the user (Apple's `showSignificantUpdateAcknowledgment`, PermissionKit's
/// `acknowledgmentAlert`): recorded in the family's history, where every guardian reads who acknowledged what, when.
extension Transaction {
    /// Most acknowledgments one member records for one app in `acknowledgmentWindow`: an app cannot fill the
    /// family's history with its text.
    static let acknowledgmentsPerWindow = 10
    static let acknowledgmentWindow: TimeInterval = 3600

    /// Records `description` as acknowledged by `member` for `app`. The description is app-controlled text: it
    /// follows `ShortText.Rule.description` (`invalidText` otherwise). A child in a family gets a history entry
    /// (at most `acknowledgmentsPerWindow` an hour per app: `rateLimited`); anyone else has no guardian to tell,
    /// so nothing is kept and the acknowledgment succeeds.
    mutating func acknowledgeUpdate(app: BundleID, description: String, member: Directory.Member) throws {
        if let violation = ShortText.violation(
            in: description, field: "ageAcknowledgeUpdate.description", rule: .description)
        {
            throw ErrorReply(.invalidText, violation.description)
        }
        guard let family = member.familyID, isChild(member) else { return }
        let window = HistoryQuery(
            childID: member.id, limit: HistoryQuery.maxLimit, newestFirst: true,
            since: now.addingTimeInterval(-Self.acknowledgmentWindow))
        let recent = try store.history(of: member.id, family: family, query: window, limit: Int(HistoryQuery.maxLimit))
            .filter { $0.kind == .updateAcknowledged && $0.appBundleID == app }.count
        guard recent < Self.acknowledgmentsPerWindow else {
            throw ErrorReply(
                .rateLimited,
                "\(member.id) acknowledged \(Self.acknowledgmentsPerWindow) updates of \(app) in the last hour, the most allowed; try again later"
            )
        }
        try recordHistory(
            .updateAcknowledged(child: member.id, at: now, device: commandDevice, app: app, description: description),
            family: family)
    }
}
