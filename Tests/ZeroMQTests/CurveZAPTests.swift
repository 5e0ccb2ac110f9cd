import Testing
import ZeroMQ

@Suite struct CurveZAPTests {
    /// A CURVE ROUTER on tcp with ZAP domain "hearth", plus its keys and endpoint.
    struct Server {
        let socket: ZMQSocket
        let keys: CurveKeyPair
        let endpoint: String

        init(context: ZMQContext) throws {
            keys = try CurveKeyPair.generate()
            socket = try makeSocket(context, .router)
            try socket.makeCurveServer(secretKey: keys.secretKey)
            try socket.setZAPDomain("hearth")
            try socket.bind("tcp://127.0.0.1:0")
            endpoint = try socket.lastEndpoint
        }
    }

    func connectClient(_ context: ZMQContext, to server: Server, keys: CurveKeyPair) throws -> ZMQSocket {
        let client = try makeSocket(context, .dealer)
        try client.makeCurveClient(serverPublicKey: server.keys.publicKey, keys: keys)
        try client.connect(server.endpoint)
        return client
    }

    @Test func zapHandlerAssignsUserIdAndRefusesUnknownKeys() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        // libzmq looks the handler up when a handshake starts, so it must be bound before the server.
        let zap = try makeSocket(context, .rep)
        defer { zap.close() }
        try zap.bind("inproc://zeromq.zap.01")
        let server = try Server(context: context)
        defer { server.socket.close() }

        let member = try CurveKeyPair.generate()
        let stranger = try CurveKeyPair.generate()
        var requests: [ZAPRequest] = []
        var replies: [[[UInt8]]] = []

        // Answers ZAP requests until the server receives a message or the deadline passes.
        func serve(for milliseconds: Int, until stop: () -> Bool = { false }) throws -> ZMQMessage? {
            let deadline = ContinuousClock.now + .milliseconds(milliseconds)
            var poller = ZMQPoller()
            let zapIndex = poller.add(zap)
            let serverIndex = poller.add(server.socket)
            while ContinuousClock.now < deadline, !stop() {
                guard try poller.poll(timeoutMilliseconds: 20) > 0 else { continue }
                if poller.isReadable(zapIndex), let message = try zap.receive(dontWait: true) {
                    let request = try ZAPRequest(frames: message.frames)
                    let allowed = request.curvePublicKeyZ85 == member.publicKey
                    let reply = request.reply(
                        allowed: allowed, userId: allowed ? "member-a" : "", statusText: allowed ? "OK" : "unknown key")
                    requests.append(request)
                    replies.append(reply)
                    try zap.send(reply)
                }
                if poller.isReadable(serverIndex), let message = try server.socket.receive(dontWait: true) {
                    return message
                }
            }
            return nil
        }

        let allowedClient = try connectClient(context, to: server, keys: member)
        defer { allowedClient.close() }
        try allowedClient.send([bytes("hello")])
        let accepted = try #require(try serve(for: 5000))
        #expect(accepted.frames.last == bytes("hello"))
        #expect(accepted.userId == "member-a")
        let first = try #require(requests.first)
        #expect(first.version == "1.0")
        #expect(first.domain == "hearth")
        #expect(first.mechanism == "CURVE")
        #expect(first.address == "127.0.0.1")
        #expect(first.credentials.count == 1)
        #expect(replies.first?[2] == bytes("200"))

        let strangerClient = try connectClient(context, to: server, keys: stranger)
        defer { strangerClient.close() }
        try strangerClient.send([bytes("intruder")])
        let isRefused = { requests.contains { $0.curvePublicKeyZ85 == stranger.publicKey } }
        #expect(try serve(for: 5000, until: isRefused) == nil)
        #expect(isRefused())
        #expect(replies.last?[2] == bytes("400"))
        #expect(try serve(for: 500) == nil)
    }

    @Test func withoutZAPHandlerCurveServerAcceptsAnyKey() throws {
        // Documents why a ZAP handler is mandatory: libzmq skips authentication when none is bound.
        let context = try ZMQContext()
        defer { context.terminate() }
        let server = try Server(context: context)
        defer { server.socket.close() }
        let client = try connectClient(context, to: server, keys: try CurveKeyPair.generate())
        defer { client.close() }
        try client.send([bytes("anyone")])
        let message = try #require(try receive(server.socket, timeoutMilliseconds: 5000))
        #expect(message.frames.last == bytes("anyone"))
        #expect(message.userId == nil)
    }

    @Test func zapRequestParsing() throws {
        let key = [UInt8](repeating: 7, count: 32)
        let frames = [bytes("1.0"), [9], bytes("hearth"), bytes("10.0.0.1"), bytes("id"), bytes("CURVE"), key]
        let request = try ZAPRequest(frames: frames)
        #expect(request.requestId == [9])
        #expect(request.routingId == bytes("id"))
        #expect(request.curvePublicKeyZ85 == (try Z85.encode(key)))
        #expect(
            request.reply(allowed: false, userId: "", statusText: "no")
                == [bytes("1.0"), [9], bytes("400"), bytes("no"), [], []])

        let null = try ZAPRequest(frames: Array(frames[0..<5]) + [bytes("NULL")])
        #expect(null.credentials.isEmpty)
        #expect(null.curvePublicKeyZ85 == nil)
        let malformed = #expect(throws: ZMQError.self) { try ZAPRequest(frames: Array(frames[0..<5])) }
        #expect(malformed?.code == 71)  // EPROTO
    }
}
