import Foundation
import HearthCore

/// How `parent list` prints a waiting question. Everything an app or child controls is printed through
/// `ShortText.escaped`: text that reached a store without the text rule cannot rewrite a terminal line.
extension Parent {
    static func describe(_ asked: AskedQuestion) -> String {
        let question = asked.question
        var lines = [
            "\(question.id)  from \(asked.childMemberID) in \(ShortText.escaped(asked.appBundleID)), asked "
                + asked.askedAt.formatted(.iso8601)
        ]
        switch question.topic {
        case .communication(let topic):
            lines.append("  wants to \(actions(topic.actions)):")
            for person in topic.personInformation {
                let name = person.displayName.map { " — " + ShortText.escaped($0) } ?? ""
                lines.append("    \(ShortText.escaped(person.handle.value)) (\(person.handle.kind))\(name)")
            }
        case .significantAppUpdate(let description):
            lines.append("  significant app update: \(indented(description))")
        }
        if let note = question.note { lines.append("  note: " + indented(note)) }
        if let expiration = question.expirationDate { lines.append("  expires \(expiration.formatted(.iso8601))") }
        // What each choice does comes first: an app's title is only its label.
        let choices = question.choices.map {
            "\($0.answer == .approval ? "approves" : "declines"): \(ShortText.escaped($0.id)) "
                + "(\"\(ShortText.escaped($0.title))\")"
        }
        lines.append("  choices: " + choices.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    /// "message or video call with", in the order PermissionKit lists the actions; "communicate with" without any.
    static func actions(_ actions: Set<CommunicationTopic.Action>) -> String {
        let words = actions.sorted { $0.rawValue < $1.rawValue }.map { action in
            switch action {
            case .message: "message"
            case .call: "call"
            case .audioCall: "audio call"
            case .videoCall: "video call"
            case .chat: "chat"
            case .communicate: "communicate"
            case .connect: "connect"
            case .follow: "follow"
            case .beFollowed: "be followed by"
            case .friend: "be friends"
            }
        }
        guard let last = words.last else { return "communicate with" }
        let list = words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
        return list + (last.hasSuffix(" by") ? "" : " with")
    }

    /// Words on several lines, each escaped, the later lines indented under the first.
    private static func indented(_ words: String) -> String {
        ShortText.escaped(words, keepingNewlines: true).replacingOccurrences(of: "\n", with: "\n        ")
    }

    /// One JSON object for `parent list --json`.
    static func json(_ asked: AskedQuestion) -> String {
        let question = asked.question
        var object: [String: Any] = [
            "id": question.id.uuidString.lowercased(), "child": asked.childMemberID, "app": asked.appBundleID,
            "askedAt": asked.askedAt.formatted(.iso8601), "defaultChoice": question.defaultChoiceID,
            "choices": question.choices.map { ["id": $0.id, "title": $0.title, "answer": $0.answer.name] },
        ]
        switch question.topic {
        case .communication(let topic):
            object["topic"] = "communication"
            object["actions"] = topic.actions.map { "\($0)" }.sorted()
            object["people"] = topic.personInformation.map { person -> [String: Any] in
                var entry: [String: Any] = ["handle": person.handle.description]
                entry["name"] = person.displayName
                entry["hasAvatar"] = person.avatarImage != nil
                return entry
            }
        case .significantAppUpdate(let description):
            object["topic"] = "significantAppUpdate"
            object["description"] = description
        }
        object["note"] = question.note
        object["expiresAt"] = question.expirationDate?.formatted(.iso8601)
        return jsonLine(object)
    }

    /// `object` as one line of JSON, keys sorted, forbidden characters written as JSON escapes.
    static func jsonLine(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return ShortText.escapedJSON(String(decoding: data, as: UTF8.self))
    }
}
