import Foundation
import NIOCore
import NIOHTTP1

/// One connection of an `HTTPListener`: reads one request, refusing from the head what it can, and closes after the
/// response. Runs on the connection's event loop only.
final class HTTPListenerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let listener: HTTPListener
    private var request: HTTPListenerRequest?
    private var body = Data()
    private var version = HTTPVersion.http1_1
    /// A response is on its way: whatever else arrives is not read.
    private var answered = false
    private var deadline: Scheduled<Void>?

    init(listener: HTTPListener) { self.listener = listener }

    func handlerAdded(context: ChannelHandlerContext) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(listener.policy.requestTimeout)) {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadline?.cancel() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            version = head.version
            let request = HTTPListenerRequest(
                method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) })
            let port = context.channel.localAddress?.port ?? 0
            if let refusal = listener.refusal(for: request, port: port) { return respond(refusal, context: context) }
            let announced = head.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
            if announced > listener.policy.maxBodyBytes { return respond(tooLarge, context: context) }
            self.request = request
        case .body(let buffer):
            guard request != nil else { return }
            guard body.count + buffer.readableBytes <= listener.policy.maxBodyBytes else {
                return respond(tooLarge, context: context)
            }
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard var request else { return }
            request.body = body
            self.request = nil
            body = Data()
            answered = true
            deadline?.cancel()
            let promise = context.eventLoop.makePromise(of: HTTPListenerResponse.self)
            promise.completeWithTask { [handler = listener.handler, request] in await handler(request) }
            promise.futureResult.assumeIsolated().whenSuccess { response in
                self.respond(response, context: context)
            }
        }
    }

    private var tooLarge: HTTPListenerResponse {
        .text(413, "413: a request body is at most \(listener.policy.maxBodyBytes) bytes here")
    }

    /// Writes `response` with the policy's headers (the response's own win) and closes the connection.
    private func respond(_ response: HTTPListenerResponse, context: ChannelHandlerContext) {
        answered = true
        request = nil
        body = Data()
        deadline?.cancel()
        var headers = HTTPHeaders(response.headers)
        for (name, value) in listener.policy.headers where !headers.contains(name: name) {
            headers.add(name: name, value: value)
        }
        headers.replaceOrAdd(name: "Content-Length", value: "\(response.body.count)")
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPResponseHead(
            version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
