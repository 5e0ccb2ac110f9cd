import Foundation
import HearthCore
import Testing

@testable import PermissionKit

@Suite struct PermissionQuestionTests {
    static let alice = CommunicationHandle(value: "alice", kind: .custom)
    static let bob = CommunicationHandle(value: "+15551234567", kind: .phoneNumber)

    static func fullTopic() -> CommunicationTopic {
        var name = PersonNameComponents()
        name.givenName = "Zoë"
        name.middleName = "Q"
        name.familyName = "Åberg"
        name.nickname = "🐉"
        return CommunicationTopic(
            personInformation: [
                PersonInformation(handle: alice, nameComponents: name, avatarImage: [0xFF, 0xD8, 0xFF]),
                PersonInformation(handle: bob),
            ],
            actions: [.message, .videoCall, .friend]
        )
    }

    @Test func handleInitializersBuildPeopleWithOnlyHandles() {
        let one = PermissionQuestion(handle: Self.alice)
        #expect(one.topic.personInformation == [PersonInformation(handle: Self.alice)])
        let two = PermissionQuestion(handles: [Self.alice, Self.bob])
        #expect(two.topic.handles == [Self.alice, Self.bob])
        #expect(two.topic.personInformation.allSatisfy { $0.nameComponents == nil && $0.avatarImage == nil })
        #expect(one.id != two.id)
    }

    @Test func defaultChoiceIsTheMostRestrictiveUnlessGiven() {
        #expect(PermissionQuestion(handle: Self.alice).defaultChoice == .decline)
        #expect(
            PermissionQuestion(significantAppUpdateTopic: SignificantAppUpdateTopic(description: "x")).defaultChoice
                == .decline)
        let once = PermissionChoice(id: "once", title: "Allow once", answer: .approval)
        let never = PermissionChoice(id: "never", title: "Never", answer: .denial)
        let custom = PermissionQuestion(topic: Self.fullTopic(), choices: [once, never])
        #expect(custom.defaultChoice == never)
        let generous = PermissionQuestion(topic: Self.fullTopic(), choices: [once, never], defaultChoice: once)
        #expect(generous.defaultChoice == once)
        // No denial among the choices: still `.decline`, which `validate()` then refuses.
        #expect(PermissionQuestion(topic: Self.fullTopic(), choices: [once]).defaultChoice == .decline)
    }

    @Test func communicationQuestionRoundTripsThroughQuestion() throws {
        let original = PermissionQuestion(
            id: uuid(1), topic: Self.fullTopic(),
            choices: [.approve, .decline, PermissionChoice(id: "later", title: "Ask me later", answer: .denial)],
            defaultChoice: .decline, expirationDate: Date(timeIntervalSince1970: 1_800_000_000.5)
        )
        let core = Question(original)
        #expect(core.id == uuid(1))
        #expect(core.topic == .communication(Self.fullTopic()))
        #expect(core.defaultChoiceID == "decline")
        #expect(core.choices == original.choices)
        #expect(core.expirationDate == original.expirationDate)
        let back = try #require(PermissionQuestion<CommunicationTopic>(core))
        #expect(back == original)
        #expect(PermissionQuestion<SignificantAppUpdateTopic>(core) == nil)
    }

    @Test func significantUpdateQuestionRoundTripsThroughQuestion() throws {
        let original = PermissionQuestion(
            significantAppUpdateTopic: SignificantAppUpdateTopic(description: "Adds voice chat"))
        let core = Question(original)
        #expect(core.topic == .significantAppUpdate(description: "Adds voice chat"))
        #expect(core.handles.isEmpty)
        #expect(try #require(PermissionQuestion<SignificantAppUpdateTopic>(core)) == original)
        #expect(PermissionQuestion<CommunicationTopic>(core) == nil)
        #expect(original.topic.description == "Adds voice chat")
    }

    @Test func unknownDefaultIdFromTheWireFallsBackToTheMostRestrictive() throws {
        let core = Question(id: uuid(2), topic: .communication(Self.fullTopic()), defaultChoiceID: "nonexistent")
        let question = try #require(PermissionQuestion<CommunicationTopic>(core))
        #expect(question.defaultChoice == .decline)
    }

    @Test func responseCarriesTheResolution() throws {
        let (asked, resolution) = answered(uuid(3), handle: "alice", choice: .approve, reason: .parentAnswered)
        let response = try #require(PermissionResponse<CommunicationTopic>(asked: asked, resolution: resolution))
        #expect(response.choice == .approve)
        #expect(response.question.id == uuid(3))
        #expect(response.question.topic.handles == [Self.alice])
        #expect(response.reason == .parentAnswered)
        #expect(response.answeredBy == "mum")
        #expect(response.resolvedAt == Date(timeIntervalSince1970: 1_750_000_100))
        #expect(response.message == nil)
        #expect(PermissionResponse<SignificantAppUpdateTopic>(asked: asked, resolution: resolution) == nil)
    }

    @Test func theNoteAndTheMessageTravel() throws {
        var (asked, resolution) = answered(uuid(4), handle: "alice", choice: .decline, reason: .parentAnswered)
        asked.question.note = "my cousin"
        resolution.message = "ask again at the weekend"
        let response = try #require(PermissionResponse<CommunicationTopic>(asked: asked, resolution: resolution))
        #expect(response.question.note == "my cousin")
        #expect(response.message == "ask again at the weekend")
        let question = PermissionQuestion(topic: Self.fullTopic(), note: "hello")
        #expect(Question(question).note == "hello")
    }

    @Test(arguments: [
        ("", "must not be empty"), (String(repeating: "x", count: 281), "281 characters"),
        (String(repeating: "🐉", count: 257), "1028 bytes"), ("a\tb", "U+0009"), ("\u{7F}", "U+007F"),
    ])
    func aNoteBreakingTheTextRulesIsNamed(note: String, rule: String) {
        let question = PermissionQuestion(topic: Self.fullTopic(), note: note)
        #expect {
            try question.validate(now: Date(timeIntervalSince1970: 1_750_000_000))
        } throws: { error in
            guard case .invalidText(let field, let reason) = error as? AskFailure else { return false }
            return field == "question.note" && reason.contains(rule)
        }
        let fine = PermissionQuestion(topic: Self.fullTopic(), note: "two\nlines, 🐉 and all")
        #expect(Self.violation(of: fine) == nil)
    }

    // MARK: Validation

    static func violation(of question: PermissionQuestion<some QuestionTopic>) -> String? {
        do {
            try question.validate(now: Date(timeIntervalSince1970: 1_750_000_000))
            return nil
        } catch {
            guard case .invalidQuestion(let reason) = error else { return "unexpected \(error)" }
            return reason
        }
    }

    @Test func validQuestionsPass() {
        #expect(Self.violation(of: PermissionQuestion(handle: Self.alice)) == nil)
        #expect(Self.violation(of: PermissionQuestion(topic: Self.fullTopic())) == nil)
        #expect(
            Self.violation(of: PermissionQuestion(significantAppUpdateTopic: .init(description: "New chat"))) == nil)
    }

    @Test func eachRuleIsNamed() {
        let none: [CommunicationHandle] = []
        let empty = PermissionQuestion(handles: none)
        #expect(Self.violation(of: empty)?.contains("at least one person") == true)
        let blank = PermissionQuestion(handle: CommunicationHandle(value: "", kind: .custom))
        #expect(Self.violation(of: blank)?.contains("handle.value is empty") == true)
        let huge = PermissionQuestion(
            handle: CommunicationHandle(value: String(repeating: "x", count: 600), kind: .custom))
        #expect(Self.violation(of: huge)?.contains("at most 512") == true)
        let crowd = PermissionQuestion(handles: (0..<33).map { CommunicationHandle(value: "p\($0)", kind: .custom) })
        #expect(Self.violation(of: crowd)?.contains("at most 32 people") == true)
        let bigAvatar = PermissionQuestion(
            communicationTopic: CommunicationTopic(personInformation: [
                PersonInformation(handle: Self.alice, avatarImage: [UInt8](repeating: 0, count: 300_000))
            ]))
        #expect(Self.violation(of: bigAvatar)?.contains("avatarImage") == true)

        let onlyApprove = PermissionQuestion(topic: Self.fullTopic(), choices: [.approve], defaultChoice: .approve)
        #expect(Self.violation(of: onlyApprove) == "choices need at least one denial")
        let onlyDecline = PermissionQuestion(topic: Self.fullTopic(), choices: [.decline])
        #expect(Self.violation(of: onlyDecline) == "choices need at least one approval")
        let twice = PermissionQuestion(topic: Self.fullTopic(), choices: [.approve, .decline, .decline])
        #expect(Self.violation(of: twice) == "choice id \"decline\" appears twice")
        let stray = PermissionChoice(id: "maybe", title: "Maybe", answer: .denial)
        let notAmong = PermissionQuestion(topic: Self.fullTopic(), defaultChoice: stray)
        #expect(
            Self.violation(of: notAmong)
                == "defaultChoice \"maybe\" is not one of the choices (\"approve\", \"decline\")")
        let renamed = PermissionQuestion(
            topic: Self.fullTopic(), defaultChoice: PermissionChoice(id: "decline", title: "No", answer: .denial))
        #expect(Self.violation(of: renamed)?.contains("differs from the choice with the same id") == true)
        let tooMany = PermissionQuestion(
            topic: Self.fullTopic(),
            choices: [.approve] + (0..<8).map { PermissionChoice(id: "d\($0)", title: "", answer: .denial) })
        #expect(Self.violation(of: tooMany)?.contains("at most 8 choices") == true)

        let expired = PermissionQuestion(
            topic: Self.fullTopic(), expirationDate: Date(timeIntervalSince1970: 1_749_999_999))
        #expect(Self.violation(of: expired)?.contains("expirationDate") == true)
        let noText = PermissionQuestion(significantAppUpdateTopic: .init(description: ""))
        #expect(Self.violation(of: noText)?.contains("needs a description") == true)
        let essay = PermissionQuestion(
            significantAppUpdateTopic: .init(description: String(repeating: "é", count: 600)))
        #expect(Self.violation(of: essay)?.contains("at most 1024") == true)
    }

    @Test func bundleIDComesFromTheEnvironmentElseTheProcessName() {
        #expect(
            CommunicationLimits.environmentBundleID(
                environment: ["HEARTH_APP_BUNDLE_ID": "com.example.chat"], processName: "x") == "com.example.chat")
        #expect(
            CommunicationLimits.environmentBundleID(environment: ["HEARTH_APP_BUNDLE_ID": ""], processName: "chat")
                == "chat")
        #expect(CommunicationLimits.environmentBundleID(environment: [:], processName: "My Chat é") == "My-Chat--")
        #expect(CommunicationLimits.environmentBundleID(environment: [:], processName: "") == "unknown-app")
    }
}

/// What an app controls and a parent reads follows the text rule, and choices mean what they say: checked before
/// anything is sent.
@Suite("PermissionQuestion text and choices")
struct PermissionQuestionTruthTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    @Test(arguments: ["stranger\u{1B}[2K\rgrandma@family.example", "evil\u{202E}moc.elpmaxe@amdnarg"])
    func aHandleInDisguiseIsRefusedByName(value: String) {
        let question = PermissionQuestion(handle: CommunicationHandle(value: value, kind: .emailAddress))
        #expect {
            try question.validate(now: Self.now)
        } throws: { error in
            guard case .invalidText(let field, _) = error as? AskFailure else { return false }
            return field == "topic.personInformation[0].handle.value"
        }
    }

    @Test func aDeclineThatApprovesIsRefusedNamingTheChoice() {
        let disguised = PermissionChoice(id: "decline", title: "Decline", answer: .approval)
        let no = PermissionChoice(id: "no", title: "No", answer: .denial)
        let question = PermissionQuestion(
            topic: CommunicationTopic(personInformation: [
                PersonInformation(handle: CommunicationHandle(value: "sam", kind: .custom))
            ]), choices: [disguised, no], defaultChoice: no)
        #expect {
            try question.validate(now: Self.now)
        } throws: { error in
            guard case .misleadingChoice(let field, let reason) = error as? AskFailure else { return false }
            return field == "question.choices[0]" && reason.contains("\"decline\"")
        }
    }
}
