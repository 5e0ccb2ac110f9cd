import Glibc
import Testing
import ZeroMQ

/// What a server does with one peer: how much of a message it copies out, and how it drops that peer's connection
/// alone (libzmq has no call for it on ROUTER or XPUB).
@Suite struct ZMQSocketPeerTests {
    @Test func framesPastTheLimitAreFreedUnreadAndCounted() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        let router = try makeSocket(context, .router)
        defer { router.close() }
        let dealer = try makeSocket(context, .dealer)
        defer { dealer.close() }
        try router.bind("tcp://127.0.0.1:0")
        try dealer.connect(try router.lastEndpoint)

        try dealer.send([bytes("a"), bytes("b"), bytes("c"), bytes("d"), bytes("e")])
        try dealer.send([bytes("next")])
        var poller = ZMQPoller()
        poller.add(router)
        _ = try poller.poll(timeoutMilliseconds: 2000)
        let cut = try #require(try router.receive(dontWait: true, maxFrames: 2))
        #expect(cut.frames.count == 2)
        #expect(cut.frames[1] == bytes("a"))
        #expect(cut.discardedFrames == 4)
        #expect(cut.sourceDescriptor >= 0, "the connection it came on")
        let next = try #require(try receive(router))
        #expect(next.frames.last == bytes("next"), "the message after it is whole")
        #expect(next.discardedFrames == 0)
    }

    @Test func droppingAPeerClosesItsConnectionOnly() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        let router = try makeSocket(context, .router)
        defer { router.close() }
        try router.bind("tcp://127.0.0.1:0")
        let endpoint = try router.lastEndpoint
        let dropped = try makeSocket(context, .dealer)
        defer { dropped.close() }
        let kept = try makeSocket(context, .dealer)
        defer { kept.close() }
        try dropped.setReconnectInterval(milliseconds: 50, max: 50)
        try dropped.connect(endpoint)
        try kept.connect(endpoint)

        try dropped.send([bytes("one")])
        let first = try #require(try receive(router))
        try kept.send([bytes("kept")])
        let keptFirst = try #require(try receive(router))
        #expect(!router.dropPeer(descriptor: -1))
        #expect(router.dropPeer(descriptor: first.sourceDescriptor))

        // libzmq names each new connection anew: the dropped peer's next message comes on another one.
        var again: ZMQMessage?
        for _ in 0..<40 where again == nil {
            _ = try dropped.send([bytes("two")], dontWait: true)
            again = try receive(router, timeoutMilliseconds: 100)
        }
        let second = try #require(again)
        #expect(second.frames[0] != first.frames[0], "a new connection")
        try kept.send([bytes("kept again")])
        var keptAgain = try #require(try receive(router))
        while keptAgain.frames.last != bytes("kept again") { keptAgain = try #require(try receive(router)) }
        #expect(keptAgain.frames[0] == keptFirst.frames[0], "the other peer's connection stayed")
    }
}
