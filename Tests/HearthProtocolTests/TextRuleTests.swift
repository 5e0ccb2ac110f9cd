import Foundation
import HearthCore
import Testing

/// The text rule for everything an app or child controls (`ShortText`), what a choice means (its answer), and the
/// escaping every output applies anyway.
@Suite("Text rule and choice meaning")
struct TextRuleTests {
    static func question(
        handle: String = "sam", name: String? = nil, choices: [PermissionChoice] = [.approve, .decline],
        defaultChoiceID: String = "decline"
    ) -> Question {
        var components = PersonNameComponents()
        components.givenName = name
        let person = PersonInformation(
            handle: CommunicationHandle(value: handle, kind: .custom), nameComponents: name.map { _ in components })
        return Question(
            topic: .communication(CommunicationTopic(personInformation: [person])), choices: choices,
            defaultChoiceID: defaultChoiceID)
    }

    /// Handles in disguise: each rewrites a terminal line or reorders what a parent reads.
    static let disguisedHandles: [(String, String)] = [
        ("stranger\u{1B}[2K\rgrandma@family.example", "U+001B"),
        ("evil\u{202E}moc.elpmaxe@amdnarg", "U+202E"),
        ("isolate\u{2066}x", "U+2066"),
        ("mark\u{200F}", "U+200F"),
        ("two\nlines", "U+000A"),
        ("c1\u{9B}31m", "U+009B"),
        ("para\u{2029}graph", "U+2029"),
        ("cafe\u{301}", "normalization form C"),
        (String(repeating: "é", count: 200) + String(repeating: "a", count: 57), "257 characters"),
        (String(repeating: "🐉", count: 129), "516 bytes"),
    ]

    @Test(arguments: disguisedHandles)
    func aHandleInDisguiseIsNamed(handle: String, rule: String) throws {
        let violation = try #require(ShortText.violation(in: Self.question(handle: handle)))
        #expect(violation.field == "topic.personInformation[0].handle.value")
        #expect(violation.reason.contains(rule), "\(violation.reason)")
        #expect(ShortText.Violation(parsing: violation.description) == violation)
    }

    @Test func everyFieldAnAppControlsFollowsItsRule() throws {
        #expect(ShortText.violation(in: Self.question(handle: "café", name: "Zoë")) == nil)
        let name = try #require(ShortText.violation(in: Self.question(name: "Gran\u{202E}dma")))
        #expect(name.field == "topic.personInformation[0].nameComponents.givenName")
        let title = PermissionChoice(id: "ok", title: "Sure\u{1B}[31m", answer: .approval)
        let titled = try #require(ShortText.violation(in: Self.question(choices: [title, .decline])))
        #expect(titled.field == "question.choices[0].title")
        let id = PermissionChoice(id: "ok\u{7}", title: "OK", answer: .approval)
        #expect(ShortText.violation(in: Self.question(choices: [id, .decline]))?.field == "question.choices[0].id")
        let update = Question(topic: .significantAppUpdate(description: "new\u{202E}txet"))
        #expect(ShortText.violation(in: update)?.field == "topic.description")
        #expect(ShortText.violation(in: Question(topic: .significantAppUpdate(description: "two\nlines"))) == nil)
        var noted = Self.question()
        noted.note = "see \u{2067}this"
        #expect(ShortText.violation(in: noted)?.field == "question.note")
        let contacts = [CommunicationHandle(value: "ok", kind: .custom), .init(value: "x\u{1B}", kind: .custom)]
        #expect(ShortText.violation(in: contacts, field: "editContacts.add")?.field == "editContacts.add[1].value")
    }

    static let misleading: [(PermissionChoice, String)] = [
        (PermissionChoice(id: "decline", title: "Decline", answer: .approval), #"id "decline""#),
        (PermissionChoice(id: "DECLINE", title: "No", answer: .approval), #"id "decline""#),
        (PermissionChoice(id: "nope", title: " decline ", answer: .approval), #"title "Decline""#),
        (PermissionChoice(id: "Approve", title: "Yes", answer: .denial), #"id "approve""#),
        (PermissionChoice(id: "yes", title: "APPROVE", answer: .denial), #"title "Approve""#),
    ]

    @Test(arguments: misleading)
    func aChoicePassingForTheOppositeStandardOneIsNamed(choice: PermissionChoice, what: String) throws {
        let other = PermissionChoice(id: "other", title: "Other", answer: choice.answer.opposite)
        let violation = try #require(PermissionChoice.impersonation(in: [other, choice]))
        #expect(violation.field == "question.choices[1]")
        #expect(violation.reason.contains(what), "\(violation.reason)")
        #expect(violation.reason.hasSuffix("but its answer is \(choice.answer.name)"), "\(violation.reason)")
    }

    @Test func ownChoicesAndTheStandardOnesAreFine() {
        #expect(PermissionChoice.impersonation(in: [.approve, .decline]) == nil)
        let own = [
            PermissionChoice(id: "week", title: "Allow for a week", answer: .approval),
            PermissionChoice(id: "decline", title: "Not now", answer: .denial),
        ]
        #expect(PermissionChoice.impersonation(in: own) == nil)
    }

    @Test func anOutcomeSaysTheAnswerBeforeTheAppsTitle() {
        #expect(PermissionChoice.approve.outcome == "approved")
        #expect(PermissionChoice.decline.outcome == "declined")
        let own = PermissionChoice(id: "later", title: "Ask me <b>later</b>", answer: .denial)
        #expect(own.outcome == #"declined (the app's "Ask me <b>later</b>")"#)
        // Even a title that was never checked: the answer comes first and the title is escaped.
        let lying = PermissionChoice(id: "x", title: "Decline\u{1B}[2K", answer: .approval)
        #expect(lying.outcome == #"approved (the app's "Decline\u{1B}[2K")"#)
    }

    @Test func escapingWritesForbiddenCharactersAsEscapes() {
        #expect(ShortText.escaped("plain café 🐉") == "plain café 🐉")
        #expect(ShortText.escaped("stranger\u{1B}[2K\rgrandma") == #"stranger\u{1B}[2K\u{D}grandma"#)
        #expect(ShortText.escaped("evil\u{202E}moc") == #"evil\u{202E}moc"#)
        #expect(ShortText.escaped("a\nb") == #"a\u{A}b"#)
        #expect(ShortText.escaped("a\nb", keepingNewlines: true) == "a\nb")
        #expect(ShortText.escapedJSON(#"{"h":"evil\#u{202E}moc"}"#) == #"{"h":"evil\u202emoc"}"#)
    }
}
