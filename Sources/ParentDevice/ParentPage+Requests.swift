import DeviceRuntime
import FlyingFox
import Foundation
import HearthCore
import HearthProtocol

extension ParentPage {
    func respond(to request: HTTPRequest, behavior: ParentBehavior, context: any DeviceContext) async -> HTTPResponse {
        let form = request.method == .POST ? Self.form(await (try? request.bodyData) ?? Data()) : [:]
        guard authorized(request, form: form) else {
            return HTTPResponse(
                statusCode: .unauthorized, headers: [HTTPHeader("Content-Type"): "text/plain; charset=utf-8"],
                body: Data("401: this page needs its token (see page.url in parent-device's state directory)\n".utf8))
        }
        switch (request.method, request.path) {
        case (.GET, "/"):
            let notice = request.query["notice"]
            return html(await PageView(behavior: behavior, context: context, token: token).render(notice: notice))
        case (.POST, "/answer"):
            let notice = await answer(form, behavior: behavior, context: context)
            var query = URLComponents()
            query.queryItems = [URLQueryItem(name: "token", value: token), URLQueryItem(name: "notice", value: notice)]
            return HTTPResponse(
                statusCode: .seeOther, headers: [HTTPHeader("Location"): "/?" + (query.percentEncodedQuery ?? "")])
        default:
            if let response = await resource(request, behavior: behavior, context: context) { return response }
            return HTTPResponse(statusCode: .notFound, body: Data("404\n".utf8))
        }
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
            let deadline = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < deadline,
                (try? await behavior.store.pending(maxBytes: Wire.maxReplyBodyBytes))?.contains(where: {
                    $0.question.id == id
                }) ?? false
            {
                try? await Task.sleep(for: .milliseconds(50))
            }
            return PageWords.notice(resolution, asked: asked)
        case .error(let reply):
            return "Not answered: \(reply.message)"
        default:
            return "Not answered: the daemon gave an unexpected reply."
        }
    }

    private func authorized(_ request: HTTPRequest, form: [String: String]) -> Bool {
        var offered: [String] = []
        if let value = request.query["token"] { offered.append(value) }
        if let value = form["token"] { offered.append(value) }
        if let value = request.headers[HTTPHeader("Authorization")], value.hasPrefix("Bearer ") {
            offered.append(String(value.dropFirst(7)))
        }
        return offered.contains { Self.same($0, token) }
    }

    /// Compares in time independent of where the strings differ.
    private static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The fields of an `application/x-www-form-urlencoded` body; a field that does not decode is left out.
    static func form(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body.prefix(64 * 1024), as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else { continue }
            fields[name] = value
        }
        return fields
    }

    private func html(_ page: String) -> HTTPResponse {
        HTTPResponse(
            statusCode: .ok,
            headers: [
                HTTPHeader("Content-Type"): "text/html; charset=utf-8",
                HTTPHeader("Cache-Control"): "no-store",
                HTTPHeader("Referrer-Policy"): "no-referrer",
                HTTPHeader("Content-Security-Policy"):
                    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; script-src 'self'; connect-src 'self'; "
                    + "form-action 'self'",
            ],
            body: Data(page.utf8))
    }
}
