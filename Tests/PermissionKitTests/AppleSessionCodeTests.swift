import Foundation
import HearthCore
import PermissionKit
import Testing

// The code of WWDC25 "Enhance child safety with PermissionKit", with only the UI lines removed. This file imports
// nothing but PermissionKit (and Foundation for PersonNameComponents), as an app would. The functions that need a
// running child-device daemon are compiled, not run: `CommunicationLimits.current` talks to the machine's real one.

/// Stand-in for UIKit's view controller: `ask(_:in:)` takes it as the presentation context.
final class ViewController {}
/// Stand-in for AppKit's window.
final class Window {}

/// The session's `conversation`.
struct Conversation {
    var participants: Set<CommunicationHandle>
}

/// 4:03 - Tailor your UI for children.
func tailorYourUI(conversation: Conversation) async -> Bool {
    let knownHandles = await CommunicationLimits.current.knownHandles(in: conversation.participants)

    if knownHandles.isSuperset(of: conversation.participants) {
        // Show content
        return true
    } else {
        // Hide content
        return false
    }
}

/// 5:15 - Create a question. (The session writes `var`; `let` keeps the build free of never-mutated warnings.)
func createAQuestion() -> PermissionQuestion<CommunicationTopic> {
    let question = PermissionQuestion(handles: [
        CommunicationHandle(value: "dragonslayer42", kind: .custom),
        CommunicationHandle(value: "progamer67", kind: .custom),
    ])
    return question
}

/// 5:38 - Create a question - additional metadata. Apple's avatar is a `CGImage`; Hearth's is encoded image bytes.
func createAQuestionWithMetadata(
    nameComponents: PersonNameComponents, profilePic: [UInt8]
) -> PermissionQuestion<CommunicationTopic> {
    let people = [
        PersonInformation(
            handle: CommunicationHandle(value: "dragonslayer42", kind: .custom),
            nameComponents: nameComponents,
            avatarImage: profilePic
        ),
        PersonInformation(
            handle: CommunicationHandle(value: "progamer67", kind: .custom)
        ),
    ]

    var topic = CommunicationTopic(personInformation: people)
    topic.actions = [.message]

    let question = PermissionQuestion(communicationTopic: topic)
    return question
}

/// 6:43 - Ask a question - UIKit. The session's `ask(_:in:)`, which Apple has since deprecated: what a ported app calls.
@available(*, deprecated, message: "exercises the deprecated API on purpose")
@MainActor
func askFromUIKit(question: PermissionQuestion<CommunicationTopic>, viewController: ViewController) async throws {
    try await CommunicationLimits.current.ask(question, in: viewController)
}

/// 6:54 - Ask a question - AppKit, with the same deprecated `ask(_:in:)`.
@available(*, deprecated, message: "exercises the deprecated API on purpose")
@MainActor
func askFromAppKit(question: PermissionQuestion<CommunicationTopic>, window: Window) async throws {
    try await CommunicationLimits.current.ask(question, in: window)
}

/// 7:19 - Parent/guardian responses: the body of the session's `.task`, in a main-actor model instead of a view.
@MainActor
final class ChatsModel {
    var isShowingResponseAlert = false
    var lastResponse: PermissionResponse<CommunicationTopic>?

    /// The session's `updates`, which Apple has since deprecated for `AskCenter`'s `responses(for:)`.
    @available(*, deprecated, message: "exercises the deprecated API on purpose")
    func task() async {
        let updates = CommunicationLimits.current.updates
        for await update in updates {
            // Received a response!
            self.isShowingResponseAlert = true
            lastResponse = update
        }
    }
}

@Suite struct AppleSessionCodeTests {
    @Test func questionFromHandlesHasOnlyHandlesAndDeclinesByDefault() {
        let question = createAQuestion()
        #expect(
            question.topic.handles == [
                CommunicationHandle(value: "dragonslayer42", kind: .custom),
                CommunicationHandle(value: "progamer67", kind: .custom),
            ])
        #expect(question.topic.personInformation.allSatisfy { $0.nameComponents == nil && $0.avatarImage == nil })
        #expect(question.topic.actions.isEmpty)
        #expect(question.choices == [.approve, .decline])
        #expect(question.defaultChoice == .decline)
        #expect(question.expirationDate == nil)
    }

    @Test func questionWithMetadataKeepsItAndTheAction() throws {
        var name = PersonNameComponents()
        name.givenName = "Dragon"
        name.familyName = "Slayer"
        let picture: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        let question = createAQuestionWithMetadata(nameComponents: name, profilePic: picture)
        let first = try #require(question.topic.personInformation.first)
        #expect(first.nameComponents == name)
        #expect(first.avatarImage == picture)
        #expect(question.topic.personInformation.last?.nameComponents == nil)
        #expect(question.topic.actions == [.message])
        #expect(question.defaultChoice == .decline)
        #expect(question.defaultChoice.answer == .denial)
    }

    @available(*, deprecated, message: "exercises the deprecated API on purpose")
    @Test func sessionFunctionsExist() {
        // Referenced so they are type-checked as values too; running them needs a real daemon.
        let functions: [Any] = [tailorYourUI, askFromUIKit, askFromAppKit, ChatsModel.task]
        #expect(functions.count == 4)
    }
}
