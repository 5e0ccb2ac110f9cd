import Glibc
import Testing
import ZeroMQ

@Suite struct ZMQSocketTests {
    @Test func dealerRouterMultipartRoundTrip() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        let router = try makeSocket(context, .router)
        defer { router.close() }
        let dealer = try makeSocket(context, .dealer)
        defer { dealer.close() }

        try router.bind("tcp://127.0.0.1:0")
        let endpoint = try router.lastEndpoint
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        try dealer.setRoutingId(bytes("dealer-1"))
        try dealer.connect(endpoint)

        #expect(try dealer.send([bytes("a"), bytes("bc"), []]))
        let request = try #require(try receive(router))
        #expect(request.frames == [bytes("dealer-1"), bytes("a"), bytes("bc"), []])
        #expect(request.userId == nil)

        try router.send([request.frames[0], bytes("reply"), bytes("2")])
        let reply = try #require(try receive(dealer))
        #expect(reply.frames == [bytes("reply"), bytes("2")])
        #expect(try dealer.hasPendingInput == false)
    }

    @Test func largeAndEmptyFramesRoundTrip() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        let pull = try makeSocket(context, .pull)
        defer { pull.close() }
        let push = try makeSocket(context, .push)
        defer { push.close() }
        try pull.bind("tcp://127.0.0.1:0")
        try push.connect(try pull.lastEndpoint)

        var generator = SystemRandomNumberGenerator()
        let words = (0..<(1_048_576 / 8)).map { _ in generator.next() as UInt64 }
        let large = words.withUnsafeBytes { Array($0) }
        #expect(large.count == 1_048_576)

        try push.send([large])
        try push.send([[]])
        try push.send([[], large, []])

        #expect(try receive(pull)?.frames == [large])
        #expect(try receive(pull)?.frames == [[]])
        #expect(try receive(pull)?.frames == [[], large, []])
    }

    @Test func typedErrors() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        let dealer = try makeSocket(context, .dealer)
        defer { dealer.close() }

        let bogus = #expect(throws: ZMQError.self) { try dealer.connect("bogus://x") }
        #expect(bogus?.code != 0)
        #expect(bogus?.operation == "zmq_connect(bogus://x)")

        #expect(try dealer.receive(dontWait: true) == nil)
        #expect(throws: ZMQError(code: EINVAL, operation: "zmq_send(no frames)")) { try dealer.send([]) }

        let first = try makeSocket(context, .router)
        defer { first.close() }
        let second = try makeSocket(context, .router)
        defer { second.close() }
        try first.bind("tcp://127.0.0.1:0")
        let endpoint = try first.lastEndpoint
        let inUse = #expect(throws: ZMQError.self) { try second.bind(endpoint) }
        #expect(inUse?.code == EADDRINUSE)
    }

    @Test func closedSocketThrowsInsteadOfCrashing() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        let socket = try makeSocket(context, .pair)
        socket.close()
        socket.close()
        #expect(socket.isClosed)
        let error = #expect(throws: ZMQError.self) { try socket.send([bytes("x")]) }
        #expect(error?.code == ENOTSOCK)
    }

    @Test func nonBlockingSendReportsWouldBlock() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        // A DEALER with no peers has nowhere to queue, so the first frame would block.
        let dealer = try makeSocket(context, .dealer)
        defer { dealer.close() }
        #expect(try dealer.send([bytes("a"), bytes("b")], dontWait: true) == false)
    }
}
