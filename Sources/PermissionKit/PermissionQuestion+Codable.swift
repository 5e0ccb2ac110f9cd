import Foundation
import HearthCore

// Apps mirror questions to their own servers (the talk's advice), so a question encodes as plain keyed data: the
// topic through its own `Codable`, each choice as its id, title and answer.
extension PermissionQuestion {
    private enum CodingKeys: String, CodingKey {
        case id, topic, choices, defaultChoice, expirationDate, note
    }

    private struct CodedChoice: Codable {
        var id: String
        var title: String
        var approves: Bool

        init(_ choice: PermissionChoice) {
            id = choice.id
            title = choice.title
            approves = choice.answer == .approval
        }

        var choice: PermissionChoice { PermissionChoice(id: id, title: title, answer: approves ? .approval : .denial) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(topic, forKey: .topic)
        try container.encode(choices.map(CodedChoice.init), forKey: .choices)
        try container.encode(CodedChoice(defaultChoice), forKey: .defaultChoice)
        try container.encodeIfPresent(expirationDate, forKey: .expirationDate)
        try container.encodeIfPresent(note, forKey: .note)
    }

    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(UUID.self, forKey: .id),
            topic: try container.decode(Topic.self, forKey: .topic),
            choices: try container.decode([CodedChoice].self, forKey: .choices).map(\.choice),
            defaultChoice: try container.decode(CodedChoice.self, forKey: .defaultChoice).choice,
            expirationDate: try container.decodeIfPresent(Date.self, forKey: .expirationDate),
            note: try container.decodeIfPresent(String.self, forKey: .note))
    }
}
