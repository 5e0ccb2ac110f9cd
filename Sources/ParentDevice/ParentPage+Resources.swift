import DeviceRuntime
import Foundation
import HearthCore
import HearthService

extension ParentPage {
    /// What the page fetches besides itself, for a request already authorized: its script, the waiting questions
    /// (polled by the script) and each person's avatar (`/avatar/QUESTION/INDEX`). nil: not one of these.
    func resource(
        _ request: HTTPListenerRequest, behavior: ParentBehavior, context: any DeviceContext
    ) async -> HTTPListenerResponse? {
        guard request.method == "GET" else { return nil }
        switch request.path {
        case "/page.js":
            return Self.resource(Data(PageScript.source.utf8), type: "text/javascript; charset=utf-8")
        case "/waiting":
            let view = PageView(behavior: behavior, context: context)
            return Self.resource(Data(await view.renderWaiting().utf8), type: "text/html; charset=utf-8")
        default:
            guard request.path.hasPrefix("/avatar/") else { return nil }
            return await avatar(request.path, behavior: behavior)
        }
    }

    /// The avatar image the app sent for a person of a waiting question, typed by its bytes; 404 when there is none,
    /// or when its bytes are not a PNG, JPEG, GIF or WebP image.
    private func avatar(_ path: String, behavior: ParentBehavior) async -> HTTPListenerResponse {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, let id = UUID(uuidString: String(parts[2])), let index = Int(parts[3]), index >= 0,
            let asked = try? await behavior.store.pendingQuestion(id),
            case .communication(let topic) = asked.question.topic, index < topic.personInformation.count,
            let bytes = topic.personInformation[index].avatarImage, let type = PageImage.contentType(bytes)
        else {
            return .text(404, "404: no such avatar")
        }
        return Self.resource(Data(bytes), type: type)
    }

    private static func resource(_ body: Data, type: String) -> HTTPListenerResponse {
        HTTPListenerResponse(
            status: 200,
            headers: [
                ("Content-Type", type),
                ("X-Content-Type-Options", "nosniff"),
                ("Cache-Control", "no-store"),
                ("Referrer-Policy", "no-referrer"),
                ("Content-Security-Policy", "default-src 'none'; sandbox; frame-ancestors 'none'"),
            ],
            body: body)
    }
}
