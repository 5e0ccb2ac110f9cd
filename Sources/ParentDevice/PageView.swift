import DeviceRuntime
import Foundation
import HearthCore
import HearthProtocol

/// The HTML of parent-device's page, built from the device's store and (for limits, approvals and the history) the
/// broker.
struct PageView {
    let behavior: ParentBehavior
    let context: any DeviceContext
    let token: String

    func render(notice: String?) async -> String {
        let pending = (try? await behavior.store.pending(maxBytes: Wire.maxReplyBodyBytes)) ?? []
        let head = (try? await behavior.store.notificationHead()) ?? 0
        let backlog = UInt64(Wire.maxNotificationBacklog)
        let history = ((try? await behavior.store.notifications(after: head > backlog ? head - backlog : 0)) ?? [])
            .reversed()
        var children = Set(pending.map(\.childMemberID))
        for item in history { children.insert(item.childMemberID) }
        var body = header()
        if let notice { body += "<p class=\"notice\" id=\"notice\">\(Self.escape(notice))</p>" }
        body += "<h2>Waiting for you</h2>"
        body +=
            pending.isEmpty
            ? "<p id=\"none-pending\">No questions are waiting.</p>" : pending.map(question).joined()
        body += "<h2>Limits</h2>"
        for child in children.sorted() { body += await limits(child) }
        if children.isEmpty { body += "<p>No child has asked on this device yet.</p>" }
        body += "<h2>History</h2>"
        for child in children.sorted() { body += await self.history(child, local: history) }
        if children.isEmpty { body += "<p>Nothing recorded yet.</p>" }
        body += "</main></body></html>"
        return body
    }

    /// The newest entries of the child's history as the broker keeps it, the same for every guardian; when the broker
    /// does not answer, what this device was told, saying so.
    private func history(_ child: MemberID, local: some Sequence<ParentNotification>) async -> String {
        let id = Self.escape(child)
        var html = "<section class=\"history\" id=\"history-\(id)\"><h3>\(id)</h3>"
        let query = HistoryQuery(childID: child, limit: Self.historyShown, newestFirst: true)
        guard case .historyPage(_, let entries, let next) = await context.forward(.history(query), timeout: .seconds(2))
        else {
            html += "<p>The family's history is not available now (the broker did not answer); "
            html += "what this device was told:</p><ul>"
            html += local.filter { $0.childMemberID == child }.prefix(Int(Self.historyShown)).map { item in
                "<li><time>\(Self.time(item.createdAt))</time> \(Self.escape(item.text))</li>"
            }.joined()
            return html + "</ul></section>"
        }
        if entries.isEmpty { return html + "<p>Nothing recorded yet.</p></section>" }
        html += "<ul>"
        for entry in entries {
            let from = entry.deviceID.map { " <small>from \(Self.escape($0))</small>" } ?? ""
            html += "<li class=\"\(entry.kind.name)\"><time>\(Self.time(entry.recordedAt))</time> "
            html += "\(Self.escape(entry.summary))\(from)</li>"
        }
        let more = next == nil ? "" : "<p><small>Older entries: hearthctl parent history \(id)</small></p>"
        return html + "</ul>\(more)</section>"
    }

    /// How many of a child's newest history entries the page shows.
    static let historyShown: UInt32 = 20

    private func header() -> String {
        let who = context.identity.map { "\($0.memberID) on \($0.deviceID)" } ?? "not yet welcomed by the broker"
        let link = context.isLinked ? "linked to the family broker" : "not linked to the family broker"
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hearth: questions for you</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"><style>\(Self.style)</style></head>
            <body><main><h1>Hearth</h1><p class="who">\(Self.escape(who)) · \(link)</p>
            """
    }

    private func question(_ asked: AskedQuestion) -> String {
        let id = asked.question.id.uuidString.lowercased()
        let people = asked.question.handles.map { Self.escape("\($0)") }.joined(separator: ", ")
        var html = "<section class=\"question\" id=\"q-\(id)\"><p><b>\(Self.escape(asked.childMemberID))</b> asks"
        html += asked.question.handles.isEmpty ? "" : " to talk to <b>\(people)</b>"
        html += " in \(Self.escape(asked.appBundleID)) <small>\(Self.time(asked.askedAt))</small></p>"
        if case .significantAppUpdate(let description) = asked.question.topic {
            html += "<p>App update: \(Self.escape(description))</p>"
        }
        if let note = asked.question.note {
            html += "<p class=\"note\" id=\"note-\(id)\">“\(Self.escape(note))”</p>"
        }
        if let expiry = asked.question.expirationDate { html += "<p><small>expires \(Self.time(expiry))</small></p>" }
        html += "<form method=\"post\" action=\"/answer\"><input type=\"hidden\" name=\"token\" value=\"\(token)\">"
        html += "<input type=\"hidden\" name=\"question\" value=\"\(id)\">"
        html += "<p><input type=\"text\" name=\"message\" id=\"message-\(id)\" "
        html += "maxlength=\"\(ShortText.maxCharacters)\" "
        html += "placeholder=\"A message with your answer (optional)\" aria-label=\"message\"></p>"
        for choice in asked.question.choices {
            let kind = choice.answer == .approval ? "approve" : "decline"
            html += "<button class=\"\(kind)\" name=\"choice\" value=\"\(Self.escape(choice.id))\" "
            html += "id=\"\(kind)-\(id)\">\(Self.escape(choice.title))</button> "
        }
        return html + "</form></section>"
    }

    private func limits(_ child: MemberID) async -> String {
        var html = "<section class=\"limits\" id=\"limits-\(Self.escape(child))\"><h3>\(Self.escape(child))</h3>"
        guard
            case .limits(_, let settings, let contacts) = await context.forward(
                .getLimits(childID: child),
                timeout: .seconds(2))
        else {
            return html + "<p>Limits are not available now (the broker did not answer).</p></section>"
        }
        html += "<p>Communication Limits \(settings.enabled ? "on" : "off"); Screen Time: \(settings.screenTime.name);"
        let schedule = Self.escape(settings.downtimeSchedule?.text ?? "no schedule")
        html += " downtime (\(schedule)): \(settings.downtime.name);"
        html += " contact editing \(settings.allowContactEditing ? "allowed" : "not allowed").</p>"
        let listed = contacts.map { Self.escape("\($0.handle)") }.joined(separator: ", ")
        html += "<p>Contacts: \(contacts.isEmpty ? "none" : listed)</p>"
        return html + (await approved(child)) + "</section>"
    }

    /// The handles approved for `child`, with who approved each and when.
    private func approved(_ child: MemberID) async -> String {
        let reply = await context.forward(.listApproved(childID: child), timeout: .seconds(2))
        guard case .approvedList(_, let approvals, let complete) = reply else { return "" }
        let items = approvals.map { approval in
            let who = approval.inPerson ? "in person" : "by \(approval.approvedBy ?? "a parent")"
            let when = approval.approvedAt.map { ", \(Self.time($0))" } ?? ""
            return Self.escape("\(approval.handle) (\(who)\(when))")
        }
        let list = items.isEmpty ? "none" : items.joined(separator: ", ") + (complete ? "" : ", …")
        return "<p id=\"approved-\(Self.escape(child))\">Approved: \(list)</p>"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static func time(_ date: Date) -> String { date.formatted(.iso8601) }

    static let style = """
        body{font:16px/1.45 system-ui,sans-serif;margin:0;background:#f6f4ef;color:#222}
        main{max-width:46rem;margin:0 auto;padding:1.5rem}h1{margin:0 0 .2rem;color:#8a3b12}
        .who{color:#666;margin-top:0}section{background:#fff;border-radius:10px;padding:.8rem 1rem;margin:.6rem 0;
        box-shadow:0 1px 3px #0002}button{font:inherit;border:0;border-radius:6px;padding:.4rem 1rem;cursor:pointer}
        .approve{background:#2e7d32;color:#fff}.decline{background:#c62828;color:#fff}.notice{background:#fff3c4;
        padding:.5rem 1rem;border-radius:6px}.note{font-style:italic;white-space:pre-line}
        input[type=text]{font:inherit;width:100%;box-sizing:border-box;padding:.3rem}.history ul{padding-left:1.2rem}
        time{color:#777;font-size:.85em}
        """
}
