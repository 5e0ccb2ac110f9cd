import Foundation
import HearthCore

extension PageView {
    /// The questions waiting, with how many: the part of the page its script fetches again (`/waiting`) to show new
    /// questions without a reload.
    static func waiting(_ pending: [AskedQuestion], total: Int, now: Date) -> String {
        let count = max(total, pending.count)
        var html = "<div id=\"waiting\"><h2>Waiting for you <span class=\"count\" id=\"waiting-count\">"
        html += "\(count == 0 ? "nothing" : PageWords.count(count, "question"))</span></h2><div id=\"cards\">"
        if pending.isEmpty {
            html += "<p id=\"none-pending\">No questions are waiting.</p>"
        } else if count > pending.count {
            html += "<p id=\"more-pending\">The oldest \(pending.count) of \(count) are shown; "
            html += "the others appear as these are answered.</p>"
        }
        html += pending.map { card($0, now: now) }.joined()
        return html + "</div></div>"
    }

    /// One question as a parent decides it: who asks to do what with whom, in which app, when, and the buttons.
    static func card(_ asked: AskedQuestion, now: Date) -> String {
        let id = asked.question.id.uuidString.lowercased()
        let child = "<b class=\"child\">\(PageHTML.untrusted(asked.childMemberID))</b>"
        let app = "<span class=\"app\">\(PageHTML.untrusted(asked.appBundleID))</span>"
        var html = "<section class=\"question\" id=\"q-\(id)\">"
        switch asked.question.topic {
        case .communication(let topic):
            let whom = topic.personInformation.count == 1 ? "this person" : "these people"
            html += "<p class=\"ask\">\(child) wants to <b class=\"actions\" id=\"actions-\(id)\">"
            html +=
                "\(PageHTML.escape(PageWords.actions(topic.actions)))</b> \(whom) in \(app)</p><ul class=\"people\">"
            for (index, person) in topic.personInformation.enumerated() {
                html += Self.person(person, question: id, index: index)
            }
            html += "</ul>"
        case .significantAppUpdate(let description):
            html += "<p class=\"ask\">\(child) wants to use an update of \(app):</p>"
            html += "<p class=\"update\">\(PageHTML.untrusted(description))</p>"
        }
        html += "<p class=\"when\">\(PageHTML.time(asked.askedAt, "asked", now: now))"
        if let expiry = asked.question.expirationDate {
            html += " · " + PageHTML.time(expiry, expiry < now ? "expired" : "expires", now: now)
        }
        html += "</p>"
        if let note = asked.question.note {
            html += "<p class=\"note\" id=\"note-\(id)\">“\(PageHTML.untrusted(note))”</p>"
        }
        return html + form(asked, id: id) + "</section>"
    }

    /// A person's avatar (when the app sent an image the page can show), name and handle in words.
    static func person(_ person: PersonInformation, question id: String, index: Int) -> String {
        var html = "<li class=\"person\" id=\"person-\(id)-\(index)\">"
        let name = PageWords.name(person.nameComponents)
        if let avatar = person.avatarImage, PageImage.contentType(avatar) != nil {
            let source = PageHTML.escape("/avatar/\(id)/\(index)")
            html += "<img class=\"avatar\" id=\"avatar-\(id)-\(index)\" src=\"\(source)\" alt=\"\" width=\"48\" "
            html += "height=\"48\">"
        } else {
            let initial = (name ?? person.handle.value).first { $0.isLetter }
            let letter = initial.map { PageHTML.escape(String($0).uppercased()) } ?? Self.glyph(person.handle.kind)
            html += "<span class=\"avatar initial\" aria-hidden=\"true\">\(letter)</span>"
        }
        html += "<span class=\"who\">"
        if let name { html += "<span class=\"name\">\(PageHTML.untrusted(name))</span>" }
        html += "<span class=\"handle\">\(PageWords.kind(person.handle.kind)) "
        html += "\(PageHTML.untrusted(person.handle.value))</span></span></li>"
        return html
    }

    /// The answer form: a message, and a button per choice labelled and coloured by its answer. The app's own title
    /// is shown beside the label, never as it: an app could title an approving choice "Decline".
    static func form(_ asked: AskedQuestion, id: String) -> String {
        var html = "<form method=\"post\" action=\"/answer\">"
        html += "<input type=\"hidden\" name=\"question\" value=\"\(id)\">"
        html += "<p><input type=\"text\" name=\"message\" id=\"message-\(id)\" "
        html += "maxlength=\"\(ShortText.maxCharacters)\" "
        html += "placeholder=\"A message with your answer (optional)\" aria-label=\"message\"></p><p class=\"choices\">"
        var seen: [PermissionChoice.Answer: Int] = [:]
        for choice in asked.question.choices {
            let approves = choice.answer == .approval
            let kind = approves ? "approve" : "decline"
            let label = approves ? "Approve" : "Decline"
            let number = seen[choice.answer, default: 0] + 1
            seen[choice.answer] = number
            let element = number == 1 ? "\(kind)-\(id)" : "\(kind)-\(id)-\(number)"
            html += "<button type=\"submit\" class=\"\(kind)\" name=\"choice\" value=\"\(PageHTML.escape(choice.id))\" "
            html += "id=\"\(element)\">\(label)"
            if choice.title.caseInsensitiveCompare(label) != .orderedSame {
                html += " <span class=\"title\">the app calls it “\(PageHTML.untrusted(choice.title))”</span>"
            }
            html += "</button> "
        }
        return html + "</p></form>"
    }

    /// What stands for a person without an avatar whose name or handle starts with no letter.
    private static func glyph(_ kind: CommunicationHandle.Kind) -> String {
        switch kind {
        case .phoneNumber: "☎"
        case .emailAddress: "@"
        case .custom: "?"
        }
    }
}
