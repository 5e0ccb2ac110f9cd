import DeclaredAgeRange
import Foundation
import HearthCore
import ParentKit
import PermissionKit

/// The README's and the DocC landing pages' snippets for app developers, the same calls inside functions that are
/// compiled but not called (they would wait on daemons forever): a renamed or removed symbol breaks the build, not the
/// reader.
/// `Tests/AppleAPITests` runs the same calls against real daemons.
enum ReadmeSnippets {
    /// Stand-ins for what the snippets take from the app around them.
    final class ViewController: Sendable {}
    struct Conversation { var participants: Set<CommunicationHandle> = [] }

    /// README.md "For app developers", and PermissionKit.docc.
    static func permissionKit(conversation: Conversation, viewController: ViewController) async throws {
        let known = await CommunicationLimits.current.knownHandles(in: conversation.participants)
        let question = PermissionQuestion(handles: [CommunicationHandle(value: "dragonslayer42", kind: .custom)])
        question.note = "We play chess at school"  // optional, shown to the parents with the question
        try await AskCenter.shared.ask(question, in: viewController)  // Apple's spelling; the anchor is ignored (no UI)
        for await response in AskCenter.shared.responses(for: CommunicationTopic.self) { _ = response.choice.answer }

        // A significant change of the app (iOS 27's flows): ask remotely, or approve in person with the passcode.
        let update = PermissionQuestion(
            significantAppUpdateTopic: SignificantAppUpdateTopic(description: "Adds video calls"))
        let result = try await AskCenter.shared.askSignificantChangePermission(
            for: update, permissionFlow: .approveInPerson, in: viewController)  // .approveInPerson(approved: true) …
        _ = (known, result)
    }

    /// README.md's Declared Age Range snippet, and DeclaredAgeRange.docc.
    static func declaredAgeRange(viewController: ViewController) async throws {
        switch try await AgeRangeService.shared.requestAgeRange(ageGates: 13, 16, in: viewController) {
        case .sharing(let range):
            print(range.lowerBound as Any, range.ageRangeDeclaration as Any, range.activeParentalControls)
        case .declinedSharing: print("declined")
        @unknown default: break
        }
        // The README's regulatory features and acknowledgment, before the endless loop below.
        if try await AgeRangeService.shared.isEligibleForAgeFeatures {
            let features = try await AgeRangeService.shared.requiredRegulatoryFeatures
            _ = features
        }
        try await AgeRangeService.shared.showSignificantUpdateAcknowledgment(
            in: viewController, updateDescription: "Adds video calls")
        for await change in AgeRangeService.shared.updates { _ = change }
    }

    /// ParentKit.docc.
    static func parentKit(lastHandled: UInt64) async {
        var lastHandled = lastHandled
        let notifications = ParentNotifications.current
        for await notification in notifications.updates(after: lastHandled) {
            print(notification.id, notification.kind.name, notification.childMemberID)
            lastHandled = notification.id
        }
    }
}
