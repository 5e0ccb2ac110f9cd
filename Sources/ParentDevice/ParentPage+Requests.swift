import DeviceRuntime
import Foundation
import HearthCore
import HearthProtocol
import HearthService
import Logging

extension ParentPage {
    /// The page's Content-Security-Policy: its own script, images and fetches only (no inline script), nothing from
    /// elsewhere, no framing, forms to itself only.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; script-src 'self'; connect-src 'self'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// Refuses from the head alone, before any body is read: a request that proves nothing (401), a URL token on
    /// anything but a `GET` (401), and a browser's form from another origin (403: a page of another local user's
    /// server on `127.0.0.1` is the same site, so `SameSite` alone lets its forms carry the cookie).
    func gate(_ request: HTTPListenerRequest) -> HTTPListenerResponse? {
        let authorities = access.authorities(of: request, cookie: cookieName)
        let usable = request.method == "GET" ? authorities : authorities.filter { $0 != .urlToken }
        guard let strongest = usable.first else {
            return .text(
                401,
                "401: this page needs the address in page.url (or page.token as a Bearer token), in parent-device's "
                    + "state directory")
        }
        if strongest == .session, request.method != "GET", request.method != "HEAD", !sameOrigin(request) {
            return .text(403, "403: a form from another origin")
        }
        return nil
    }

    private func sameOrigin(_ request: HTTPListenerRequest) -> Bool {
        let origin = request.headers["origin"]
        return origin == "http://127.0.0.1:\(boundPort)" || origin == "http://localhost:\(boundPort)"
    }

    /// Every request the gate let in: a URL token is exchanged first, then the route.
    func respond(
        to request: HTTPListenerRequest, behavior: ParentBehavior, context: any DeviceContext
    ) async
        -> HTTPListenerResponse
    {
        if request.query["token"] != nil { return await exchange(request, context: context) }
        return await route(request, behavior: behavior, context: context)
    }

    /// The page's routes. A route is one line here and a function in an extension of its own.
    func route(
        _ request: HTTPListenerRequest, behavior: ParentBehavior, context: any DeviceContext
    ) async
        -> HTTPListenerResponse
    {
        switch (request.method, request.path) {
        case ("GET", "/"):
            return html(
                await PageView(behavior: behavior, context: context).render(notice: request.query["notice"]))
        case ("POST", "/answer"):
            let notice = await answer(Self.form(request.body), behavior: behavior, context: context)
            var query = URLComponents()
            query.queryItems = [URLQueryItem(name: "notice", value: notice)]
            return .seeOther("/?" + (query.percentEncodedQuery ?? ""))
        default:
            if let response = await resource(request, behavior: behavior, context: context) { return response }
            return .text(404, "404")
        }
    }

    /// Spends the URL token for a session cookie (if it is the current one) and sends the browser to the same
    /// address without it, so it stays in neither the address bar nor the history.
    private func exchange(_ request: HTTPListenerRequest, context: any DeviceContext) async -> HTTPListenerResponse {
        var rest = URLComponents()
        rest.path = request.path
        let kept = request.query.filter { $0.key != "token" }.sorted { $0.key < $1.key }
        rest.queryItems = kept.isEmpty ? nil : kept.map { URLQueryItem(name: $0.key, value: $0.value) }
        let location = rest.string ?? "/"
        guard let offered = request.query["token"], let (session, next) = access.exchange(offered) else {
            // Spent already (by this browser or another): only a request that proves itself otherwise goes on.
            let others = access.authorities(of: request, cookie: cookieName).filter { $0 != .urlToken }
            return others.isEmpty
                ? .text(401, "401: this address was used already; open page.url again") : .seeOther(location)
        }
        do {
            try await BlockingWork.run { [self] in try publishURL(token: next) }
        } catch {
            context.logger.error("page.url not rewritten", metadata: ["error": "\(error)"])
        }
        return .seeOther(
            location, headers: [("Set-Cookie", "\(cookieName)=\(session); Path=/; HttpOnly; SameSite=Strict")])
    }

    /// Sends the answer to the broker as this device's member; returns what happened, for the page to say.
    func answer(_ form: [String: String], behavior: ParentBehavior, context: any DeviceContext) async -> String {
        guard let text = form["question"], let id = UUID(uuidString: text), let choice = form["choice"],
            Identifier.isValid(choice)
        else { return "That answer was not understood; nothing was sent." }
        // A browser sends a text area's newlines as CR LF; an empty field is no message.
        let message = form["message"].map { $0.replacingOccurrences(of: "\r\n", with: "\n") }.flatMap {
            $0.isEmpty ? nil : $0
        }
        if let message, let violation = ShortText.violation(in: message, field: "answer.message") {
            return "Not answered: the message \(violation.reason)."
        }
        let asked = try? await behavior.store.pendingQuestion(id)
        switch await context.forward(.answer(questionID: id, choiceID: choice, message: message)) {
        case .answerAccepted(let resolution):
            // The page shown next should no longer list it: wait (briefly) for the broker's event to be applied.
            await waitUntilAnswered(id, behavior: behavior, within: .seconds(2))
            return PageWords.notice(resolution, asked: asked)
        case .error(let reply):
            return "Not answered: \(reply.message)"
        default:
            return "Not answered: the daemon gave an unexpected reply."
        }
    }

    /// Returns once question `id` no longer waits in the store (or the store cannot be read), or after `limit`. It
    /// checks at once, then each time events are applied: the event that resolves it wakes the wait.
    private func waitUntilAnswered(_ id: UUID, behavior: ParentBehavior, within limit: Duration) async {
        let applied = behavior.appliedEvents.changes()
        let store = behavior.store
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in applied {
                    guard let pending = try? await store.pending(maxBytes: Wire.maxReplyBodyBytes),
                        pending.contains(where: { $0.question.id == id })
                    else { return }
                }
            }
            group.addTask { try? await Task.sleep(for: limit) }
            // The first to end decides; cancelling the other ends its wait (and stops the listening).
            await group.next()
            group.cancelAll()
        }
    }

    /// The fields of an `application/x-www-form-urlencoded` body; a field that does not decode is left out.
    static func form(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else { continue }
            fields[name] = value
        }
        return fields
    }

    private func html(_ page: String) -> HTTPListenerResponse {
        HTTPListenerResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"),
                ("Cache-Control", "no-store"),
                // The listener's `same-origin` stays: with `no-referrer` a browser sends `Origin: null` on the page's
                // own form posts, which the same-origin check then refuses.
                ("Content-Security-Policy", Self.contentSecurityPolicy),
            ],
            body: Data(page.utf8))
    }
}
