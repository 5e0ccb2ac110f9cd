import Foundation

extension ShortText {
    /// The first field of `question` an app controls that breaks its text rule, named by its decode name
    /// (docs/PROTOCOL.md §5), e.g. `topic.personInformation[0].handle.value`; nil when every field follows its rule.
    /// The bundle id is not among them: it is held to `[A-Za-z0-9._-]` where it enters (`Identifier`).
    public static func violation(in question: Question) -> Violation? {
        switch question.topic {
        case .communication(let topic):
            for (index, person) in topic.personInformation.enumerated() {
                if let violation = violation(in: person, field: "topic.personInformation[\(index)]") {
                    return violation
                }
            }
        case .significantAppUpdate(let description):
            if let violation = violation(in: description, field: "topic.description", rule: .description) {
                return violation
            }
        }
        for (index, choice) in question.choices.enumerated() {
            let field = "question.choices[\(index)]"
            if let violation = violation(in: choice.id, field: field + ".id", rule: .choiceID) { return violation }
            if let violation = violation(in: choice.title, field: field + ".title", rule: .choiceTitle) {
                return violation
            }
        }
        if let note = question.note, let violation = violation(in: note, field: "question.note") { return violation }
        return nil
    }

    /// The first part of `person` (its handle's value, the parts of its name) that breaks its rule.
    public static func violation(in person: PersonInformation, field: String) -> Violation? {
        if let violation = violation(in: person.handle.value, field: field + ".handle.value", rule: .handle) {
            return violation
        }
        guard let name = person.nameComponents else { return nil }
        let parts = [
            ("givenName", name.givenName), ("middleName", name.middleName), ("familyName", name.familyName),
            ("nickname", name.nickname),
        ]
        for case (let part, let text?) in parts {
            if let violation = violation(in: text, field: field + ".nameComponents.\(part)", rule: .name) {
                return violation
            }
        }
        return nil
    }

    /// The first handle of `handles` whose value breaks the handle rule, e.g. a contact a child adds.
    public static func violation(in handles: [CommunicationHandle], field: String) -> Violation? {
        for (index, handle) in handles.enumerated() {
            if let violation = violation(in: handle.value, field: "\(field)[\(index)].value", rule: .handle) {
                return violation
            }
        }
        return nil
    }
}
