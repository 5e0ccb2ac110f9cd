import DeclaredAgeRange
import Foundation
import HearthCore
import PermissionKit

// An app written against Apple's shipping SDK (PermissionKit and Declared Age Range, iOS 26.1 to 27.0), every non-UI
// symbol spelled as developer.apple.com documents it. This file imports nothing but the two frameworks and
// Foundation, as a ported app would; the UI anchors (`in: viewController`) are a stand-in class, since Linux has no
// UIKit. The entry points take the center and the service as parameters (`.shared` by default, as the app would
// write) so that the tests can run the same code against a fleet of real daemons.

/// Stand-in for UIKit's view controller, the anchor Apple's sheets present from.
final class ChatViewController: Sendable {}

/// The chat app's PermissionKit side.
struct ChatApp {
    var center: AskCenter = .shared
    let viewController = ChatViewController()

    /// Asks to talk to a new friend (iOS 26.2's `AskCenter`), with the person nested as Apple spells it.
    @MainActor
    func askToChat(with name: String, handle: String) async throws -> PermissionQuestion<CommunicationTopic> {
        var components = PersonNameComponents()
        components.givenName = name
        let person = CommunicationTopic.PersonInformation(
            handle: CommunicationHandle(value: handle, kind: .custom), nameComponents: components, avatarImage: nil)
        let question = PermissionQuestion<CommunicationTopic>(
            communicationTopic: CommunicationTopic(personInformation: [person], actions: [.message]))
        try await center.ask(question, in: viewController)
        return question
    }

    /// The first response to a communication question, as the app's background task would receive it.
    func nextCommunicationResponse() async -> PermissionResponse<CommunicationTopic>? {
        for await response in center.responses(for: CommunicationTopic.self) { return response }
        return nil
    }

    /// The response to the significant-update question `id`; the ones before it count as handled.
    func updateResponse(to id: UUID) async -> PermissionResponse<SignificantAppUpdateTopic>? {
        for await response in center.responses(for: SignificantAppUpdateTopic.self) where response.question.id == id {
            return response
        }
        return nil
    }

    /// Asks a parent to approve the app's significant change (iOS 27) through `flow`.
    @MainActor
    func askForUpdate(
        _ description: String, flow: PermissionFlow
    ) async throws -> (
        PermissionQuestion<SignificantAppUpdateTopic>, PermissionResult
    ) {
        let question = PermissionQuestion<SignificantAppUpdateTopic>(
            significantAppUpdateTopic: SignificantAppUpdateTopic(description: description))
        let result = try await center.askSignificantChangePermission(
            for: question, permissionFlow: flow, in: viewController)
        return (question, result)
    }

    /// The app mirrors a question to its server, as the talk advises: questions and topics are Codable.
    static func mirrored<Topic: QuestionTopic>(
        _ question: PermissionQuestion<Topic>
    ) throws -> PermissionQuestion<Topic> {
        try JSONDecoder().decode(PermissionQuestion<Topic>.self, from: JSONEncoder().encode(question))
    }

    /// The topic kinds the app registers.
    static var topicIDs: [String] { [CommunicationTopic.id, SignificantAppUpdateTopic.id] }

    /// What the app tells the child for each of Apple's `AskError` cases.
    static func message(for error: any Error) -> String {
        guard let error = error as? AskError else { return "unexpected" }
        switch error {
        case .unknown: return "unknown"
        case .communicationLimitsNotEnabled: return "communicationLimitsNotEnabled"
        case .contactSyncNotSetup: return "contactSyncNotSetup"
        case .invalidQuestion: return "invalidQuestion"
        case .notAvailable: return "notAvailable"
        case .systemError(let underlyingError): return "systemError: \(underlyingError)"
        }
    }

    /// Describes a flow's outcome.
    static func describe(_ result: PermissionResult) -> String {
        switch result {
        case .askToApprove(let didSend): "askToApprove(didSend: \(didSend))"
        case .approveInPerson(let approved): "approveInPerson(approved: \(approved))"
        case .cancel: "cancel"
        }
    }

    /// Every flow the SDK names.
    static let flows: [PermissionFlow] = [.askToApprove, .approveInPerson, .acknowledgmentAlert]
}

/// The landmarks app's Declared Age Range side.
struct LandmarksApp {
    var service: AgeRangeService = .shared
    let viewController = ChatViewController()

    /// Requests the range with the UIKit spelling (`in:`).
    @MainActor
    func range(gates: Int, _ second: Int? = nil) async throws -> AgeRangeService.Response {
        try await service.requestAgeRange(ageGates: gates, second, nil, in: viewController)
    }

    /// What the region requires of the app (iOS 26.4), and whether age features apply at all (26.2).
    func regulatoryNeeds() async throws -> (eligible: Bool, features: Set<AgeRangeService.RegulatoryFeature>) {
        (try await service.isEligibleForAgeFeatures, try await service.requiredRegulatoryFeatures)
    }

    /// How the range's age was established, as the app would log it.
    static func assurance(of declaration: AgeRangeService.AgeRangeDeclaration?) -> String {
        switch declaration {
        case .selfDeclared: "selfDeclared"
        case .guardianDeclared: "guardianDeclared"
        case .checkedByOtherMethod: "checkedByOtherMethod"
        case .guardianCheckedByOtherMethod: "guardianCheckedByOtherMethod"
        case .governmentIDChecked: "governmentIDChecked"
        case .guardianGovernmentIDChecked: "guardianGovernmentIDChecked"
        case .paymentChecked: "paymentChecked"
        case .guardianPaymentChecked: "guardianPaymentChecked"
        case .confirmed: "confirmed"
        case nil: "none"
        }
    }

    /// What the app does for each of Apple's errors.
    static func message(for error: any Error) -> String {
        guard let error = error as? AgeRangeService.Error else { return "unexpected" }
        switch error {
        case .invalidRequest: return "invalidRequest"
        case .notAvailable: return "notAvailable"
        case .invalidAccount: return "invalidAccount"
        case .network: return "network"
        case .declinedOnboarding: return "declinedOnboarding"
        }
    }

    /// The parental controls the app reacts to, including the 26.2 significant-change signal (deprecated by Apple in
    /// 26.4 for `requiredRegulatoryFeatures`, and still set: an app written for 26.2 reads it).
    @available(*, deprecated, message: "exercises the deprecated API on purpose")
    static func controls(_ controls: AgeRangeService.ParentalControls) -> (limits: Bool, approval: Bool, text: String) {
        (
            controls.contains(.communicationLimits), controls.contains(.significantAppChangeApprovalRequired),
            controls.description
        )
    }

    /// Every regulatory feature the SDK names.
    static let features: [AgeRangeService.RegulatoryFeature] = [
        .declaredAgeRangeRequired, .significantAppChangeRequiresParentalConsent,
        .significantAppChangeRequiresAdultNotification,
    ]

    /// The acknowledgment of a significant update, in the UIKit and the SwiftUI spellings.
    @MainActor
    func acknowledge(_ description: String, action: SignificantUpdateAction) async throws {
        try await service.showSignificantUpdateAcknowledgment(in: viewController, updateDescription: description)
        try await action(updateDescription: description)
    }
}
