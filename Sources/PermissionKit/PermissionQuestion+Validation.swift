public import Foundation
import HearthCore
import HearthProtocol

extension PermissionQuestion {
    /// Checks the rules a question must follow before it is sent, throwing `AskFailure.invalidQuestion`,
    /// `.invalidText` (a text field breaks its `ShortText` rule) or `.misleadingChoice`, naming the first one broken.
    /// `ask` calls it; apps may call it earlier to check a question they build from user input.
    public func validate(now: Date = Date()) throws(AskFailure) {
        let question = Question(self)
        if let reason = QuestionRules.firstViolation(in: question, now: now) {
            throw .invalidQuestion(reason: reason)
        }
        // Every text the app controls reaches a parent: handles, names, choices, the description, the note.
        if let violation = ShortText.violation(in: question) {
            throw .invalidText(field: violation.field, reason: violation.reason)
        }
        // A parent decides from a choice's answer; a choice titled "Decline" that approves would deceive them.
        if let violation = PermissionChoice.impersonation(in: choices) {
            throw .misleadingChoice(field: violation.field, reason: violation.reason)
        }
        // After the per-field limits, so that the error names the first rule a question breaks.
        if let violation = QuestionBudget.check(question) {
            throw .questionTooLarge(
                bytes: violation.bytes, budget: violation.budget, largestField: violation.largestField)
        }
        // The wire carries only the default's id, so a default that differs from its namesake in `choices` would change meaning.
        if !choices.contains(defaultChoice) {
            throw .invalidQuestion(
                reason: "defaultChoice \"\(defaultChoice.id)\" differs from the choice with the same id")
        }
    }
}

/// The rules of a valid question. The size limits mirror those `MessageCodec` enforces when decoding, so a question
/// that passes here is never refused by the daemon as malformed.
enum QuestionRules {
    static let maxPeople = 32
    static let maxChoices = 8
    static let maxChoiceIDBytes = 64
    static let maxChoiceTitleBytes = 256
    static let maxDescriptionBytes = 1024

    /// A sentence naming the first rule `question` breaks, or nil when it follows them all.
    static func firstViolation(in question: Question, now: Date) -> String? {
        if let problem = topicViolation(question.topic) { return problem }
        if let problem = choicesViolation(question) { return problem }
        if let expiration = question.expirationDate, expiration <= now {
            return "expirationDate \(expiration) is not in the future, so nobody could answer"
        }
        return nil
    }

    private static func topicViolation(_ topic: Question.Topic) -> String? {
        switch topic {
        case .communication(let topic):
            let people = topic.personInformation
            if people.isEmpty { return "a communication question needs at least one person (handle)" }
            if people.count > maxPeople {
                return "a question may name at most \(maxPeople) people, this one names \(people.count)"
            }
            for (index, person) in people.enumerated() {
                let value = person.handle.value
                if value.isEmpty { return "personInformation[\(index)].handle.value is empty" }
                if value.utf8.count > Wire.maxHandleBytes {
                    return
                        "personInformation[\(index)].handle.value is \(value.utf8.count) bytes, at most \(Wire.maxHandleBytes) allowed"
                }
                if let avatar = person.avatarImage, avatar.count > Wire.maxAvatarBytes {
                    return
                        "personInformation[\(index)].avatarImage is \(avatar.count) bytes, at most \(Wire.maxAvatarBytes) allowed"
                }
                if let name = person.nameComponents {
                    let parts = [name.givenName, name.middleName, name.familyName, name.nickname].compactMap { $0 }
                    if parts.contains(where: { $0.utf8.count > Wire.maxStringBytes }) {
                        return
                            "personInformation[\(index)].nameComponents has a part longer than \(Wire.maxStringBytes) bytes"
                    }
                }
            }
        case .significantAppUpdate(let description):
            if description.isEmpty { return "a significant app update question needs a description for the parent" }
            if description.utf8.count > maxDescriptionBytes {
                return "description is \(description.utf8.count) bytes, at most \(maxDescriptionBytes) allowed"
            }
        }
        return nil
    }

    private static func choicesViolation(_ question: Question) -> String? {
        let choices = question.choices
        if choices.count > maxChoices {
            return "a question may offer at most \(maxChoices) choices, this one offers \(choices.count)"
        }
        var seen = Set<String>()
        for choice in choices {
            if choice.id.isEmpty { return "a choice id is empty" }
            if choice.id.utf8.count > maxChoiceIDBytes {
                return "choice id \"\(choice.id)\" is longer than \(maxChoiceIDBytes) bytes"
            }
            if choice.title.utf8.count > maxChoiceTitleBytes {
                return "choice \"\(choice.id)\" has a title longer than \(maxChoiceTitleBytes) bytes"
            }
            if !seen.insert(choice.id).inserted { return "choice id \"\(choice.id)\" appears twice" }
        }
        if !choices.contains(where: { $0.answer == .approval }) { return "choices need at least one approval" }
        if !choices.contains(where: { $0.answer == .denial }) { return "choices need at least one denial" }
        if question.defaultChoice == nil {
            let ids = choices.map { "\"\($0.id)\"" }.joined(separator: ", ")
            return "defaultChoice \"\(question.defaultChoiceID)\" is not one of the choices (\(ids))"
        }
        return nil
    }
}
