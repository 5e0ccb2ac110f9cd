import DeclaredAgeRange
import Foundation
import HearthCore
import PermissionKit

// Every non-UI symbol of Apple's PermissionKit and DeclaredAgeRange up to iOS 27.0, spelled as developer.apple.com
// documents it, in one place: this file compiling is the check (ShippingSDKApp.swift runs the flows against the
// daemons). Like an app's, it imports nothing but the two frameworks and Foundation. The UI anchors (`in:
// UIViewController`, `in: NSWindow`) are the stand-in `ChatViewController`; SwiftUI's views and environment values
// are left out, their actions kept (`DeclaredAgeRangeAction`, `SignificantUpdateAction`).
enum SDKSymbolProbe {
    // MARK: PermissionKit: questions and topics

    static func questions() throws -> [String] {
        var handle = CommunicationHandle(value: "+15551234567", kind: .phoneNumber)
        handle.value = "sam@example.com"
        handle.kind = .emailAddress
        let kinds: [CommunicationHandle.Kind] = [.phoneNumber, .emailAddress, .custom]
        var person = CommunicationTopic.PersonInformation(handle: handle, nameComponents: nil, avatarImage: nil)
        person.handle = CommunicationHandle(value: "sam", kind: .custom)
        person.nameComponents = PersonNameComponents()
        var topic = CommunicationTopic(personInformation: [person])
        topic = CommunicationTopic(personInformation: [person], actions: [.message, .call])
        topic.personInformation.append(person)
        topic.actions = [
            .message, .call, .audioCall, .videoCall, .chat, .communicate, .follow, .beFollowed, .friend,
        ]
        let single = PermissionQuestion<CommunicationTopic>(handle: handle)
        let several = PermissionQuestion<CommunicationTopic>(handles: [handle, person.handle])
        let asked = PermissionQuestion<CommunicationTopic>(communicationTopic: topic)
        asked.expirationDate = Date().addingTimeInterval(3600)
        var update = SignificantAppUpdateTopic(description: "Adds video calls.")
        update.description = "Adds video calls and a public feed."
        let significant = PermissionQuestion<SignificantAppUpdateTopic>(significantAppUpdateTopic: update)
        var choice = PermissionChoice(id: "approveOneHour", title: "Approve for an hour", answer: .denial)
        // `title` and `answer` are settable (`id` is not, in Apple's SDK).
        choice.title = "Approve for one hour"
        choice.answer = .approval
        let answers: [PermissionChoice.Answer] = [choice.answer, PermissionChoice.decline.answer, .denial]
        let flows: Set<PermissionFlow> = [.askToApprove, .approveInPerson, .acknowledgmentAlert]
        let fields: [String] = [
            single.id.uuidString, "\(several.topic.personInformation.count)", "\(asked.choices.count)",
            asked.defaultChoice.id, "\(asked.expirationDate != nil)", significant.topic.description,
            PermissionChoice.approve.title, choice.id, "\(kinds.count)", "\(answers.count)",
            CommunicationTopic.id, SignificantAppUpdateTopic.id, person.handle.value, "\(flows.count)",
        ]
        // Questions and topics are Codable: an app mirrors them to its server.
        let data = try JSONEncoder().encode(significant)
        _ = try JSONDecoder().decode(PermissionQuestion<SignificantAppUpdateTopic>.self, from: data)
        _ = try JSONEncoder().encode(topic)
        return fields
    }

    /// A topic kind an app defines is a `QuestionTopic`: `Codable` with a static `id`.
    static func topicID<Topic: QuestionTopic>(_: Topic.Type) -> String { Topic.id }

    // MARK: PermissionKit: asking and answers

    @MainActor
    static func asking(
        _ center: AskCenter, _ question: PermissionQuestion<CommunicationTopic>,
        _ update: PermissionQuestion<SignificantAppUpdateTopic>, in anchor: ChatViewController
    ) async throws -> PermissionResult {
        try await center.ask(question, in: anchor)
        try await center.ask(update, in: anchor)
        for flow in [PermissionFlow.askToApprove, .approveInPerson, .acknowledgmentAlert] {
            let result = try await center.askSignificantChangePermission(for: update, permissionFlow: flow, in: anchor)
            switch result {
            case .askToApprove(let didSend): if didSend { return result }
            case .approveInPerson(let approved): if approved { return result }
            case .cancel: return result
            }
        }
        return .cancel
    }

    static func answers(_ center: AskCenter) async -> [String] {
        var seen: [String] = []
        for await response in center.responses(for: CommunicationTopic.self) {
            seen.append("\(response.question.id) \(response.choice.answer)")
            break
        }
        for await response in center.responses(for: SignificantAppUpdateTopic.self) {
            seen.append(response.question.topic.description + " " + response.choice.id)
            break
        }
        return seen
    }

    /// The 26.0 spellings, deprecated by `AskCenter` in 26.2 and still working.
    @available(*, deprecated, message: "probes Apple's deprecated spellings")
    @MainActor
    static func communicationLimits(
        _ question: PermissionQuestion<CommunicationTopic>, in anchor: ChatViewController
    ) async throws -> Bool {
        let limits = CommunicationLimits.current
        let handle = CommunicationHandle(value: "sam", kind: .custom)
        let known = await limits.knownHandles(in: [handle])
        try await limits.ask(question, in: anchor)
        for await response in limits.updates where response.question.id == question.id { break }
        return await limits.isKnownHandle(handle) || !known.isEmpty
    }

    static func askError(_ error: AskError) -> String {
        switch error {
        case .unknown, .invalidQuestion, .notAvailable, .communicationLimitsNotEnabled, .contactSyncNotSetup:
            error.errorDescription ?? ""
        case .systemError(let underlyingError): "\(underlyingError)"
        }
    }

    // MARK: DeclaredAgeRange

    /// Deprecated only so that it may use the 26.2 flag Apple deprecated in 26.4 without a warning.
    @available(*, deprecated, message: "probes Apple's deprecated spellings")
    @MainActor
    static func ageRange(_ service: AgeRangeService, in anchor: ChatViewController) async throws -> [String] {
        let shared: AgeRangeService = .shared
        var seen: [String] = ["\(shared.self)"]
        let response = try await service.requestAgeRange(ageGates: 13, 16, 18, in: anchor)
        switch response {
        case .sharing(let range):
            seen.append("\(range.lowerBound ?? 0)...\(range.upperBound ?? 0)")
            seen.append(declaration(range.ageRangeDeclaration))
            let controls: AgeRangeService.ParentalControls = range.activeParentalControls
            let all = AgeRangeService.ParentalControls(rawValue: controls.rawValue)
            seen.append(all.description + "\(deprecatedFlags().contains(.communicationLimits))")
        case .declinedSharing:
            seen.append("declinedSharing")
        }
        seen.append("\(try await service.isEligibleForAgeFeatures)")
        let features: Set<AgeRangeService.RegulatoryFeature> = try await service.requiredRegulatoryFeatures
        for feature in features {
            switch feature {
            case .declaredAgeRangeRequired, .significantAppChangeRequiresParentalConsent,
                .significantAppChangeRequiresAdultNotification:
                seen.append("\(feature)")
            }
        }
        try await service.showSignificantUpdateAcknowledgment(in: anchor, updateDescription: "Adds a public feed.")
        let request = DeclaredAgeRangeAction(service: service)
        _ = try await request(ageGates: 16)
        let acknowledge = SignificantUpdateAction(service: service)
        try await acknowledge(updateDescription: "Adds a public feed.")
        return seen
    }

    /// Deprecated by Apple in 26.4 for `requiredRegulatoryFeatures`, and still set.
    @available(*, deprecated, message: "probes Apple's deprecated spellings")
    static func deprecatedFlags() -> AgeRangeService.ParentalControls {
        [.communicationLimits, .significantAppChangeApprovalRequired]
    }

    static func declaration(_ declaration: AgeRangeService.AgeRangeDeclaration?) -> String {
        switch declaration {
        case .selfDeclared, .guardianDeclared, .checkedByOtherMethod, .guardianCheckedByOtherMethod,
            .governmentIDChecked, .guardianGovernmentIDChecked, .paymentChecked, .guardianPaymentChecked, .confirmed:
            "\(declaration!)"
        case nil: "none"
        }
    }

    static func ageError(_ error: AgeRangeService.Error) -> String {
        switch error {
        case .invalidRequest, .notAvailable, .invalidAccount, .network, .declinedOnboarding: "\(error)"
        }
    }
}
