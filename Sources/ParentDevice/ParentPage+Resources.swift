import DeviceRuntime
import FlyingFox
import Foundation
import HearthCore

extension ParentPage {
    /// What the page fetches besides itself, for a request already authorized: its script, the waiting questions
    /// (polled by the script) and each person's avatar (`/avatar/QUESTION/INDEX`). nil: not one of these.
    func resource(_ request: HTTPRequest, behavior: ParentBehavior, context: any DeviceContext) async -> HTTPResponse? {
        guard request.method == .GET else { return nil }
        switch request.path {
        case "/page.js":
            return Self.resource(Data(PageScript.source.utf8), type: "text/javascript; charset=utf-8")
        case "/waiting":
            let view = PageView(behavior: behavior, context: context, token: token)
            return Self.resource(Data(await view.renderWaiting().utf8), type: "text/html; charset=utf-8")
        default:
            guard request.path.hasPrefix("/avatar/") else { return nil }
            return await avatar(request.path, behavior: behavior)
        }
    }

    /// The avatar image the app sent for a person of a waiting question, typed by its bytes; 404 when there is none,
    /// or when its bytes are not a PNG, JPEG, GIF or WebP image.
    private func avatar(_ path: String, behavior: ParentBehavior) async -> HTTPResponse {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, let id = UUID(uuidString: String(parts[2])), let index = Int(parts[3]), index >= 0,
            let asked = try? await behavior.store.pendingQuestion(id),
            case .communication(let topic) = asked.question.topic, index < topic.personInformation.count,
            let bytes = topic.personInformation[index].avatarImage, let type = PageImage.contentType(bytes)
        else {
            return HTTPResponse(
                statusCode: .notFound, headers: [HTTPHeader("Content-Type"): "text/plain; charset=utf-8"],
                body: Data("404: no such avatar\n".utf8))
        }
        return Self.resource(Data(bytes), type: type)
    }

    private static func resource(_ body: Data, type: String) -> HTTPResponse {
        HTTPResponse(
            statusCode: .ok,
            headers: [
                HTTPHeader("Content-Type"): type,
                HTTPHeader("X-Content-Type-Options"): "nosniff",
                HTTPHeader("Cache-Control"): "no-store",
                HTTPHeader("Referrer-Policy"): "no-referrer",
                HTTPHeader("Content-Security-Policy"): "default-src 'none'; sandbox",
            ],
            body: body)
    }
}
