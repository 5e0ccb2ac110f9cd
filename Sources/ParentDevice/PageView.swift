import DeviceRuntime
import Foundation
import HearthCore
import HearthProtocol

/// The HTML of parent-device's page, built from the device's store and (for limits, approvals and the history) the
/// broker. What an app or a child controls is escaped and isolated (`PageHTML.untrusted`); wire names become words
/// (`PageWords`).
struct PageView {
    let behavior: ParentBehavior
    let context: any DeviceContext

    func render(notice: String?) async -> String {
        let now = Date()
        let (pending, total) = await waiting()
        let head = (try? await behavior.store.notificationHead()) ?? 0
        let backlog = UInt64(Wire.maxNotificationBacklog)
        let history = ((try? await behavior.store.notifications(after: head > backlog ? head - backlog : 0)) ?? [])
            .reversed()
        var children = Set(pending.map(\.childMemberID))
        for item in history { children.insert(item.childMemberID) }
        var body = header(waiting: total)
        if let notice { body += "<p class=\"notice\" id=\"notice\" role=\"status\">\(PageHTML.notice(notice))</p>" }
        body += Self.waiting(pending, total: total, now: now)
        body += "<h2>Limits</h2>"
        for child in children.sorted() { body += await limits(child, now: now) }
        if children.isEmpty { body += "<p>No child has asked on this device yet.</p>" }
        body += "<h2>History</h2>"
        for child in children.sorted() { body += await self.history(child, local: history, now: now) }
        if children.isEmpty { body += "<p>Nothing recorded yet.</p>" }
        body += "</main></body></html>"
        return body
    }

    /// The part of the page that the script polls: the waiting questions and their count.
    func renderWaiting() async -> String {
        let (pending, total) = await waiting()
        return Self.waiting(pending, total: total, now: Date())
    }

    /// The waiting questions that fit in a page (oldest first), and how many wait in all.
    private func waiting() async -> ([AskedQuestion], Int) {
        let pending = (try? await behavior.store.pending(maxBytes: Wire.maxReplyBodyBytes)) ?? []
        let total = (try? await behavior.store.pendingCount()) ?? pending.count
        return (pending, total)
    }

    /// The newest entries of the child's history as the broker keeps it, the same for every guardian; when the broker
    /// does not answer, what this device was told, saying so.
    private func history(_ child: MemberID, local: some Sequence<ParentNotification>, now: Date) async -> String {
        let id = PageHTML.escape(child)
        var html = "<section class=\"history\" id=\"history-\(id)\"><h3>\(PageHTML.untrusted(child))</h3>"
        let query = HistoryQuery(childID: child, limit: Self.historyShown, newestFirst: true)
        guard case .historyPage(_, let entries, let next) = await context.forward(.history(query), timeout: .seconds(2))
        else {
            html += "<p>The family's history is not available now (the broker did not answer); "
            html += "what this device was told:</p><ul>"
            html += local.filter { $0.childMemberID == child }.prefix(Int(Self.historyShown)).map { item in
                "<li>\(PageHTML.time(item.createdAt, "", now: now)) \(PageHTML.untrusted(item.text))</li>"
            }.joined()
            return html + "</ul></section>"
        }
        if entries.isEmpty { return html + "<p>Nothing recorded yet.</p></section>" }
        html += "<ul>"
        for entry in entries {
            let from = entry.deviceID.map { " <small>from \(PageHTML.escape($0))</small>" } ?? ""
            html += "<li class=\"\(entry.kind.name)\">\(PageHTML.time(entry.recordedAt, "", now: now)) "
            html += "\(PageHTML.untrusted(entry.summary))\(from)</li>"
        }
        let more = next == nil ? "" : "<p><small>Older entries: hearthctl parent history \(id)</small></p>"
        return html + "</ul>\(more)</section>"
    }

    /// How many of a child's newest history entries the page shows.
    static let historyShown: UInt32 = 20

    private func header(waiting: Int) -> String {
        let who = context.identity.map { "\($0.memberID) on \($0.deviceID)" } ?? "not yet welcomed by the broker"
        let link = context.isLinked ? "linked to the family broker" : "not linked to the family broker"
        let title = waiting == 0 ? "Hearth: questions for you" : "(\(waiting)) Hearth: questions for you"
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"><style>\(Self.style)</style>
            <script src="/page.js" defer></script></head>
            <body><main><h1>Hearth</h1><p class="who">\(PageHTML.escape(who)) · \(link)</p>
            """
    }

    private func limits(_ child: MemberID, now: Date) async -> String {
        let name = PageHTML.untrusted(child)
        var html = "<section class=\"limits\" id=\"limits-\(PageHTML.escape(child))\"><h3>\(name)</h3>"
        guard
            case .limits(_, let settings, let contacts) = await context.forward(
                .getLimits(childID: child),
                timeout: .seconds(2))
        else {
            return html + "<p>Limits are not available now (the broker did not answer).</p></section>"
        }
        html += "<ul class=\"rules\">"
        html += PageWords.limits(settings, child: child).map { "<li>\(PageHTML.escape($0))</li>" }.joined()
        html += "</ul>"
        let listed = contacts.map { contact in
            PageHTML.escape(PageWords.kind(contact.handle.kind)) + " " + PageHTML.untrusted(contact.handle.value)
        }
        html += "<p>Contacts: \(contacts.isEmpty ? "none" : listed.joined(separator: ", "))</p>"
        return html + (await approved(child, now: now)) + "</section>"
    }

    /// The handles approved for `child`, with who approved each and when.
    private func approved(_ child: MemberID, now: Date) async -> String {
        let reply = await context.forward(.listApproved(childID: child), timeout: .seconds(2))
        guard case .approvedList(_, let approvals, let complete) = reply else { return "" }
        let items = approvals.map { approval in
            let who = approval.inPerson ? "in person" : "by \(PageHTML.escape(approval.approvedBy ?? "a parent"))"
            let when = approval.approvedAt.map { ", " + PageHTML.time($0, "", now: now) } ?? ""
            let handle = PageWords.kind(approval.handle.kind) + " " + PageHTML.untrusted(approval.handle.value)
            return "\(handle) (\(who)\(when))"
        }
        let list = items.isEmpty ? "none" : items.joined(separator: ", ") + (complete ? "" : ", …")
        return "<p id=\"approved-\(PageHTML.escape(child))\">Approved: \(list)</p>"
    }

    static func escape(_ text: String) -> String { PageHTML.escape(text) }

    static let style = """
        body{font:16px/1.45 system-ui,sans-serif;margin:0;background:#f6f4ef;color:#222;overflow-wrap:anywhere}
        main{max-width:46rem;margin:0 auto;padding:1rem}h1{margin:0 0 .2rem;color:#8a3b12}
        h2{margin:1.2rem 0 .4rem}.count{font-size:.8em;font-weight:normal;background:#8a3b12;color:#fff;
        border-radius:1rem;padding:.05rem .6rem;vertical-align:middle}
        .who{color:#666;margin-top:0}section{background:#fff;border-radius:10px;padding:.8rem 1rem;margin:.6rem 0;
        box-shadow:0 1px 3px #0002}.ask{margin:.2rem 0 .5rem}.people{list-style:none;margin:0;padding:0}
        .person{display:flex;align-items:center;gap:.7rem;margin:.4rem 0}.avatar{flex:none;width:48px;height:48px;
        border-radius:50%;object-fit:cover;background:#e7d9cc}.initial{display:flex;align-items:center;
        justify-content:center;font-weight:bold;color:#8a3b12;font-size:1.3rem}.person .who{display:flex;
        flex-direction:column;min-width:0;color:inherit;margin:0}.name{font-weight:600}.handle{color:#555}
        .when{margin:.3rem 0;color:#666}.choices{display:flex;flex-wrap:wrap;gap:.5rem}
        button{font:inherit;border:0;border-radius:6px;padding:.5rem 1.2rem;cursor:pointer;max-width:100%}
        button .title{display:block;font-size:.75em;opacity:.9}
        .approve{background:#2e7d32;color:#fff}.decline{background:#c62828;color:#fff}.notice{background:#fff3c4;
        padding:.5rem 1rem;border-radius:6px}.note{font-style:italic;white-space:pre-line}
        .ctl{font:.75em monospace;background:#fdd;color:#900;border-radius:3px;padding:0 .2em}
        input[type=text]{font:inherit;width:100%;box-sizing:border-box;padding:.4rem}.history ul,.rules{padding-left:1.2rem}
        time{color:#777;font-size:.85em}.history time{margin-right:.3rem}
        @media (max-width:30rem){main{padding:.5rem}section{padding:.7rem}.choices button{flex:1}}
        """
}
