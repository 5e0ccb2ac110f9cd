public import Foundation

/// What an `HTTPListener` sends back: a status, header fields and a body. The listener adds `Content-Length`,
/// `Connection: close` and its policy's headers.
public struct HTTPListenerResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data

    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text response: `text` and a newline.
    public static func text(_ status: Int, _ text: String, headers: [(String, String)] = []) -> HTTPListenerResponse {
        HTTPListenerResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: Data((text + "\n").utf8))
    }

    /// 303 to `location`.
    public static func seeOther(_ location: String, headers: [(String, String)] = []) -> HTTPListenerResponse {
        HTTPListenerResponse(status: 303, headers: [("Location", location)] + headers)
    }
}
