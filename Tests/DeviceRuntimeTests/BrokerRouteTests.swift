import HearthCore
import HearthProtocol
import Testing

@testable import DeviceRuntime

/// Which broker a device talks to: the configured list, redirects to owners with their epochs, and moving on.
struct BrokerRouteTests {
    static func broker(_ n: Int) -> BrokerAddress {
        BrokerAddress(ingress: "tcp://10.0.0.\(n):7701", egress: "tcp://10.0.0.\(n):7702", publicKey: "K\(n)")
    }
    static let a = broker(1)
    static let b = broker(2)
    static let c = broker(3)
    static let owner = broker(9)
    static let emma = DeviceIdentity(familyID: "appleseed", memberID: "emma", deviceID: "emma-tablet", role: .child)

    @Test func startsOnTheFirstConfiguredBroker() {
        let route = BrokerRoute([Self.a, Self.b, Self.c])
        #expect(route.target == Self.a)
        #expect(route.owner == nil)
    }

    @Test func anUnreachableBrokerMovesOnToTheNextAndWrapsAround() {
        var route = BrokerRoute([Self.a, Self.b, Self.c])
        var seen: [BrokerAddress] = []
        for _ in 0..<4 {
            let r1 = route.unreachable()
            #expect(r1)
            seen.append(route.target)
        }
        #expect(seen == [Self.b, Self.c, Self.a, Self.b])
    }

    @Test func aSingleBrokerIsKeptWhenUnreachable() {
        var route = BrokerRoute([Self.a])
        let r2 = route.unreachable()
        #expect(!r2, "nowhere else to go: ZeroMQ keeps reconnecting")
        #expect(route.target == Self.a)
    }

    @Test func aRedirectMovesToTheOwnerAndAnUnreachableOwnerBackToTheList() {
        var route = BrokerRoute([Self.a, Self.b])
        _ = route.unreachable()
        #expect(route.target == Self.b)
        let r3 = route.follow(Self.owner, partition: 7, epoch: 3)
        #expect(r3 == .moved)
        #expect(route.target == Self.owner)
        let r4 = route.unreachable()
        #expect(r4)
        #expect(route.target == Self.b, "back to the configured broker it came from, which knows the new owner")
        let r5 = route.unreachable()
        #expect(r5)
        #expect(route.target == Self.a)
    }

    @Test func aRedirectWithALowerEpochForTheSamePartitionIsIgnored() {
        var route = BrokerRoute([Self.a, Self.b])
        let r6 = route.follow(Self.owner, partition: 7, epoch: 5)
        #expect(r6 == .moved)
        _ = route.unreachable()
        let r7 = route.follow(Self.c, partition: 7, epoch: 4)
        #expect(r7 == .stale, "a broker that lost the lease at epoch 4")
        #expect(route.target == Self.a)
        let r8 = route.follow(Self.c, partition: 7, epoch: 5)
        #expect(r8 == .moved, "the same epoch: the owner that was followed")
        let r9 = route.follow(Self.b, partition: 7, epoch: 6)
        #expect(r9 == .moved, "a newer owner")
        #expect(route.target == Self.b)
        let r10 = route.follow(Self.c, partition: 8, epoch: 1)
        #expect(r10 == .moved, "epochs are per partition")
        #expect(route.epochs == [7: 6, 8: 1])
    }

    @Test func aRedirectToTheBrokerItIsOnIsNoMove() {
        var route = BrokerRoute([Self.a, Self.b])
        let r11 = route.follow(Self.owner, partition: 1, epoch: 1)
        #expect(r11 == .moved)
        let r12 = route.follow(Self.owner, partition: 1, epoch: 1)
        #expect(r12 == .alreadyThere, "a second redirect of the same move")
        #expect(route.target == Self.owner)
    }

    @Test func theLinkSaysHelloAgainWhereARedirectSendsIt() {
        var link = BrokerLink(brokers: [Self.a, Self.b])
        link.welcomed(Self.emma)
        _ = link.caughtUp()
        let r13 = link.redirected(to: Self.owner, partition: 2, epoch: 4)
        #expect(r13 == Self.owner)
        #expect(link.phase == .brokerGone)
        #expect(link.identity == Self.emma, "who this device is does not change with its broker")
        let r14 = link.redirected(to: Self.owner, partition: 2, epoch: 4)
        #expect(r14 == nil, "already there")
        let r15 = link.redirected(to: Self.c, partition: 2, epoch: 3)
        #expect(r15 == Self.a, "stale: back to the list")
        let r16 = link.unreachable()
        #expect(r16 == Self.b)
    }

    @Test func aRedirectBeforeAnyWelcomeKeepsConnecting() {
        var link = BrokerLink(brokers: [Self.a])
        let r17 = link.redirected(to: Self.owner, partition: 0, epoch: 1)
        #expect(r17 == Self.owner)
        #expect(link.phase == .connecting)
        let r18 = link.unreachable()
        #expect(r18 == Self.a)
        let r19 = link.unreachable()
        #expect(r19 == nil, "one configured broker and no redirect: stay")
    }
}
