import HearthProtocol
import Testing

@testable import DeviceRuntime

/// The link's changes are pushed (`LinkCell`, `DeviceContext.linkChanges`): a command waiting for the link goes as
/// soon as it is up, and gives up at its limit.
struct LinkChangesTests {
    static let broker = BrokerAddress(ingress: "tcp://10.0.0.1:7701", egress: "tcp://10.0.0.1:7702", publicKey: "K1")

    @Test func aListenerHearsTheStateNowThenEachTimeTheLinkGoesUpOrDown() async {
        let cell = LinkCell(BrokerLink(brokers: [Self.broker]))
        var changes = cell.changes().makeAsyncIterator()
        #expect(await changes.next() == false)
        cell.withLock { $0.welcomed(BrokerLinkTests.emma) }  // catching up: still not linked, nothing said
        _ = cell.withLock { $0.caughtUp() }
        #expect(await changes.next() == true)
        _ = cell.withLock { $0.lost() }
        #expect(await changes.next() == false)
        #expect(cell.withLock { $0.isLinked } == false)
    }

    @Test func aCommandWaitingForTheLinkGoesAsSoonAsItIsUp() async {
        let context = FakeContext()
        context.setBroker { _ in .pong(head: 7) }
        let forwarded = Task { await context.forward(.ping) }
        try? await Task.sleep(for: .milliseconds(300))
        #expect(context.requests.isEmpty, "nothing goes to the broker while the link is down")
        context.setLinked(true, as: Fixtures.emma)
        // Woken by the change: a wait that ran to its limit would answer that the broker is unavailable.
        #expect(await forwarded.value == .pong(head: 7))
        #expect(context.requests == [.ping])
    }

    @Test func aWaitEndsAtItsLimitWhenTheLinkStaysDown() async {
        let context = FakeContext()
        let started = ContinuousClock.now
        #expect(await context.waitUntilLinked(within: .milliseconds(200)) == false)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        context.setLinked(true)
        #expect(await context.waitUntilLinked(within: .seconds(5)) == true)
    }
}
