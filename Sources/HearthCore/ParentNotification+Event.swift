import Foundation

extension ParentNotification {
    /// What a parent is told of `event` (numbered `id`), or nil for an event that tells a parent nothing.
    public init?(id: UInt64, event: Event) {
        switch event.body {
        case .questionPending(let asked):
            let text =
                "\(asked.childMemberID) asks \(Self.subject(asked.question)) in \(asked.appBundleID)"
                + Self.quoted(asked.question.note)
            self.init(id: id, kind: .questionPending, asked: asked, at: event.createdAt, text: text)
        case .questionResolved(let asked, let resolution):
            let kind = Self.kind(of: resolution.reason)
            // The answer given, in words, before any title the app chose: a "Decline" that approves reads "approved".
            let outcome = resolution.choice.outcome
            let text: String =
                switch resolution.reason {
                case .parentAnswered:
                    "\(resolution.answeredBy ?? "a parent") \(outcome) for \(asked.childMemberID): "
                        + Self.subject(asked.question) + Self.quoted(resolution.message)
                case .approvedInPerson:
                    "approved in person on \(asked.childMemberID)'s device: \(Self.subject(asked.question))"
                case .declinedInPerson:
                    "declined in person on \(asked.childMemberID)'s device: \(Self.subject(asked.question))"
                case .expired:
                    "expired unanswered, so \(outcome) for \(asked.childMemberID): \(Self.subject(asked.question))"
                case .withdrawn:
                    "\(asked.childMemberID) withdrew the question \(Self.subject(asked.question)) in \(asked.appBundleID)"
                default:
                    "closed as \(outcome) (\(resolution.reason)) for \(asked.childMemberID): "
                        + Self.subject(asked.question)
                }
            self.init(id: id, kind: kind, asked: asked, at: event.createdAt, text: text)
            answeredBy = resolution.answeredBy
            // A withdrawal is nobody's answer: the default choice the app receives is not one a parent gave.
            choiceID = resolution.reason == .withdrawn ? nil : resolution.choice.id
        case .questionReminder(let asked):
            let expiry = asked.question.expirationDate.map { " at \($0.formatted(.iso8601))" } ?? " soon"
            let text =
                "still waiting: \(asked.childMemberID) asks \(Self.subject(asked.question)) in \(asked.appBundleID);"
                + " it expires\(expiry)"
            self.init(id: id, kind: .questionReminder, asked: asked, at: event.createdAt, text: text)
        case .historyRecorded(let entry) where entry.kind == .updateAcknowledged:
            self.init(
                id: id, kind: .updateAcknowledged, createdAt: event.createdAt, childMemberID: entry.childMemberID,
                questionID: nil, appBundleID: entry.appBundleID, answeredBy: nil, choiceID: nil,
                text: Self.clipped(entry.summary))
        case .historyRecorded(let entry):
            // Each guardian is told of the others' changes, not of its own.
            guard entry.kind.isSettingsChange, entry.actor != event.memberID else { return nil }
            self.init(
                id: id, kind: .settingsChanged, createdAt: event.createdAt, childMemberID: entry.childMemberID,
                questionID: nil, appBundleID: nil, answeredBy: entry.actor, choiceID: nil,
                text: Self.clipped(entry.summary))
        case .handlesChanged, .ageRange, .omitted:
            return nil
        }
    }

    private init(id: UInt64, kind: Kind, asked: AskedQuestion, at date: Date, text: String) {
        self.init(
            id: id, kind: kind, createdAt: date, childMemberID: asked.childMemberID, questionID: asked.question.id,
            appBundleID: asked.appBundleID, answeredBy: nil, choiceID: nil, text: Self.clipped(text))
    }

    /// The longest text a notification carries, in characters: one line for a person, far below the wire's cap.
    public static let maxTextCharacters = 400

    private static func clipped(_ text: String) -> String {
        text.count <= maxTextCharacters ? text : String(text.prefix(maxTextCharacters - 1)) + "…"
    }

    /// ` — "words"` on one line, or nothing without words.
    static func quoted(_ words: String?) -> String {
        guard let words else { return "" }
        return " — \"\(words.replacingOccurrences(of: "\n", with: " "))\""
    }

    private static func kind(of reason: Resolution.Reason) -> Kind {
        switch reason {
        case .parentAnswered, .approvedInPerson, .declinedInPerson: .questionAnswered
        case .expired: .questionExpired
        case .withdrawn: .questionWithdrawn
        default: .questionClosed
        }
    }

    /// `to talk to custom:mallory, phone:+1555…` or the update's description, cut to keep the line short.
    static func subject(_ question: Question) -> String {
        switch question.topic {
        case .communication(let topic):
            let handles = topic.handles.map { "\($0)" }
            let shown = handles.prefix(3).joined(separator: ", ")
            return "to talk to \(shown)\(handles.count > 3 ? " and \(handles.count - 3) more" : "")"
        case .significantAppUpdate(let description):
            return "about an app update: \(description.prefix(200))"
        }
    }
}
