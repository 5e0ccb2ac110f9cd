import HearthCore
import HearthProtocol
import Testing

@testable import DeviceRuntime

/// Every transition of the broker link's state machine: each phase under each input.
struct BrokerLinkTests {
    typealias Phase = BrokerLink.Phase

    static let emma = DeviceIdentity(familyID: "appleseed", memberID: "emma", deviceID: "emma-tablet", role: .child)
    static let noVersion = ErrorReply(.unsupportedVersion, "no common version")
    static let first = BrokerAddress(ingress: "tcp://10.0.0.1:7701", egress: "tcp://10.0.0.1:7702", publicKey: "K1")

    /// A link in `phase`, reached through its inputs; every phase but `connecting` has been welcomed once.
    static func link(in phase: Phase) -> BrokerLink {
        var link = BrokerLink(brokers: [Self.first])
        guard phase != .connecting else { return link }
        link.welcomed(emma)
        switch phase {
        case .connecting, .catchingUp: break
        case .keyRefused: _ = link.handshakeRefused()
        case .refused(let error): link.refused(error)
        case .linked: _ = link.caughtUp()
        case .brokerGone:
            _ = link.caughtUp()
            _ = link.lost()
        }
        #expect(link.phase == phase)
        return link
    }

    static let phases: [Phase] = [.connecting, .keyRefused, .refused(noVersion), .catchingUp, .linked, .brokerGone]

    @Test func startsConnectingWithoutIdentityAndNotSyncing() {
        let link = BrokerLink(brokers: [Self.first])
        #expect(link.phase == .connecting)
        #expect(link.identity == nil)
        #expect(link.sync == .idle)
        #expect(!link.isLinked && !link.isKeyRefused)
    }

    @Test(arguments: phases) func welcomedAlwaysCatchesUpAndRemembersWhoWeAre(from phase: Phase) {
        var link = Self.link(in: phase)
        let other = DeviceIdentity(familyID: "appleseed", memberID: "emma", deviceID: "emma-phone", role: .child)
        link.welcomed(other)
        #expect(link.phase == .catchingUp)
        #expect(link.identity == other)
        #expect(!link.isLinked)
    }

    @Test(arguments: phases) func caughtUpLinksOnlyWhileCatchingUp(from phase: Phase) {
        var link = Self.link(in: phase)
        let cameUp = link.caughtUp()
        #expect(cameUp == (phase == .catchingUp))
        #expect(link.phase == (phase == .catchingUp ? .linked : phase))
        #expect(link.isLinked == (phase == .catchingUp || phase == .linked))
    }

    @Test(arguments: phases) func lostMakesAWelcomedLinkBrokerGoneAndSaysWhenItWasUp(from phase: Phase) {
        var link = Self.link(in: phase)
        let wasUp = link.lost()
        #expect(wasUp == (phase == .linked))
        let expected: Phase = (phase == .linked || phase == .catchingUp) ? .brokerGone : phase
        #expect(link.phase == expected)
        let kept = phase == .connecting ? nil : Self.emma
        #expect(link.identity == kept, "the identity is kept while the link is down")
    }

    @Test(arguments: phases) func handshakeRefusedIsNewsOnlyOnce(from phase: Phase) {
        var link = Self.link(in: phase)
        let r1 = link.handshakeRefused()
        #expect(r1 == (phase != .keyRefused))
        #expect(link.phase == .keyRefused)
        #expect(link.isKeyRefused && !link.isLinked)
        let r2 = link.handshakeRefused()
        #expect(!r2)
    }

    @Test(arguments: phases) func handshakeSucceededLiftsOnlyAKeyRefusal(from phase: Phase) {
        var link = Self.link(in: phase)
        _ = link.handshakeSucceeded()
        #expect(link.phase == (phase == .keyRefused ? .brokerGone : phase))
    }

    @Test func aKeyRefusedBeforeAnyWelcomeGoesBackToConnecting() {
        var link = BrokerLink(brokers: [Self.first])
        let r3 = link.handshakeRefused()
        #expect(r3)
        _ = link.handshakeSucceeded()
        #expect(link.phase == .connecting)
    }

    /// A broker that restarts forgets the version each device negotiated: a second connection of a welcomed link
    /// wants a hello in place of its next ping; the first connection's own event, however late, does not.
    @Test func aNewConnectionAfterTheWelcomeWantsAHello() {
        var link = BrokerLink(brokers: [Self.first])
        link.welcomed(Self.emma)
        _ = link.caughtUp()
        let late = link.handshakeSucceeded()
        #expect(!late && !link.helloWanted, "the first connection's event came after its welcome")
        let reconnected = link.handshakeSucceeded()
        #expect(reconnected && link.helloWanted && link.isLinked, "up meanwhile: only the next ping becomes a hello")
        link.welcomed(Self.emma)
        #expect(!link.helloWanted)
        _ = link.caughtUp()
        let again = link.handshakeSucceeded()
        #expect(again, "the next reconnection too")
        var fresh = BrokerLink(brokers: [Self.first])
        let early = fresh.handshakeSucceeded()
        #expect(!early, "before any welcome the hello is on its way anyway")
        fresh.welcomed(Self.emma)
        _ = fresh.caughtUp()
        let later = fresh.handshakeSucceeded()
        #expect(later && fresh.helloWanted)
    }

    @Test(arguments: phases) func refusedRecordsTheBrokersError(from phase: Phase) {
        var link = Self.link(in: phase)
        let tooOld = ErrorReply(.unsupportedVersion, "too old")
        link.refused(tooOld)
        #expect(link.phase == .refused(tooOld))
        #expect(!link.isLinked && !link.isKeyRefused)
    }

    @Test func aFullLifeConnectsLinksLosesAndComesBack() {
        var link = BrokerLink(brokers: [Self.first])
        link.welcomed(Self.emma)
        let r4 = link.caughtUp()
        #expect(r4)
        #expect(link.isLinked)
        let r5 = link.lost()
        #expect(r5)
        let r6 = link.lost()
        #expect(!r6, "lost once")
        #expect(link.phase == .brokerGone)
        link.welcomed(Self.emma)
        let r7 = link.caughtUp()
        #expect(r7)
        let r8 = link.caughtUp()
        #expect(!r8, "already up")
    }

    @Test func aSyncWantedWhileOneRunsRunsOnceMore() {
        var link = BrokerLink(brokers: [Self.first])
        let r9 = link.syncWanted()
        #expect(r9, "idle: start one")
        #expect(link.sync == .running)
        let r10 = link.syncWanted()
        #expect(!r10, "running: do not start a second")
        #expect(link.sync == .runningAgain)
        let r11 = link.syncWanted()
        #expect(!r11, "wanted again twice is still once more")
        #expect(link.sync == .runningAgain)
        let r12 = link.syncEnded()
        #expect(r12, "run once more")
        #expect(link.sync == .running)
        let r13 = link.syncEnded()
        #expect(!r13, "done")
        #expect(link.sync == .idle)
        let r14 = link.syncEnded()
        #expect(!r14, "an end while idle changes nothing")
        #expect(link.sync == .idle)
    }

    @Test(arguments: phases) func syncingDoesNotDependOnThePhase(from phase: Phase) {
        var link = Self.link(in: phase)
        let r15 = link.syncWanted()
        #expect(r15)
        #expect(link.phase == phase)
        let r16 = link.syncEnded()
        #expect(!r16)
    }
}
