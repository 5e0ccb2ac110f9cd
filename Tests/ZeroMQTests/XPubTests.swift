import Testing
import ZeroMQ

@Suite struct XPubTests {
    @Test func manualXPubAppliesOwnerChosenSubscription() throws {
        let context = try ZMQContext()
        defer { context.terminate() }
        let xpub = try makeSocket(context, .xpub)
        defer { xpub.close() }
        try xpub.setXPubManual(true)
        try xpub.bind("inproc://xpub-manual")
        let sub = try makeSocket(context, .sub)
        defer { sub.close() }
        try sub.connect("inproc://xpub-manual")
        try sub.subscribe([])

        let subscription = try #require(try receive(xpub))
        #expect(subscription.frames == [[0x01]])
        // Manual mode applies subscriptions to the pipe of the last received one, so this must follow the receive.
        try xpub.subscribe(bytes("member-a\n"))

        try xpub.send([bytes("member-b\n"), bytes("x")])
        try xpub.send([bytes("member-a\n"), bytes("y")])
        #expect(try receive(sub)?.frames == [bytes("member-a\n"), bytes("y")])
        #expect(try receive(sub, timeoutMilliseconds: 100) == nil)
    }
}
