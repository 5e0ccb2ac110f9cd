import Foundation
import HearthFleet
import Synchronization
import Testing

/// PostgreSQL's own failover under a cluster of brokers, with real servers (docs/SCALING.md): a primary and a
/// streaming standby started here, two family-broker processes reaching the database through one address (their
/// store relays) that the test moves, the child asking and the parent approving without a pause. The primary's
/// WAL sender to the standby is frozen for a second (the standby falls behind, as over a slow link), then the
/// primary's postmaster and every process of it are killed with SIGKILL (its host crashing), the standby promoted,
/// the address pointed at it.
@Suite("PostgreSQL failover under the brokers", .serialized)
struct PostgresFailoverTests {
    static let spec = FleetSpec(families: BrokerClusterTests.family.families, store: .postgres, brokers: 2)

    /// Short leases, as the cluster tests: a broker past a lease without its database serves nothing.
    static let arguments = ["--ask-limit", "100000/3600", "--lease-seconds", "2", "--partitions", "8"]

    /// How long the standby is behind (its WAL sender frozen) when the primary dies.
    static let lag = Duration.seconds(1)

    /// What one failover did, as measured.
    struct Outcome: CustomStringConvertible {
        var synchronous: Bool
        /// Asks the child-device daemon accepted before the kill.
        var acceptedBefore: [UUID] = []
        /// Asks sent before the kill and accepted after it: their commit, if any, was on the old primary.
        var inFlight: [UUID] = []
        /// Asks sent after the kill (and accepted): only the new primary can have them.
        var askedAfter: [UUID] = []
        /// Of those accepted before the kill or in flight at it, the ones never answered.
        var lost: [UUID] = []
        /// Of those asked after the kill, the ones never answered.
        var unansweredAfter: [UUID] = []
        /// Of those, the ones asked after the first question answered after the kill (the family served again).
        var unansweredOnceServed: [UUID] = []
        /// Questions delivered more than once to a device of the child.
        var duplicated: [UUID] = []
        /// Whether the last question asked (seconds after the family was first served again) was answered.
        var lastAnswered = false
        var promoted: Duration = .zero
        /// From the kill until a question asked after it was answered on the child's devices.
        var servedAgain: Duration = .zero
        /// Each unanswered question's ask, sent and accepted relative to the kill.
        var details: [String] = []

        var description: String {
            "postgres failover (\(synchronous ? "synchronous" : "asynchronous") standby, \(lag) behind): "
                + "\(acceptedBefore.count) questions accepted before the kill and \(inFlight.count) in flight at it, "
                + "\(lost.count) of them lost; \(askedAfter.count) asked after it, \(unansweredAfter.count) of them "
                + "unanswered (\(unansweredOnceServed.count) once served again); \(duplicated.count) delivered twice; "
                + "standby promoted \(promoted) after the kill; "
                + "family served again \(servedAgain) after the kill"
        }
    }

    @Test func aSynchronousStandbyLosesNothingAcknowledged() async throws {
        let outcome = try await Self.failOver(synchronous: true)
        print(outcome)
        Attachment.record(outcome.description, named: "postgres-failover-synchronous.txt")
        #expect(outcome.lost.isEmpty, "acknowledged questions lost: \(outcome.details)")
        #expect(outcome.unansweredAfter.isEmpty, "asked after the kill, unanswered: \(outcome.details)")
        #expect(outcome.duplicated.isEmpty, "delivered more than once: \(outcome.duplicated)")
        #expect(outcome.lastAnswered)
    }

    @Test func anAsynchronousStandbyRecoversAndDuplicatesNothing() async throws {
        let outcome = try await Self.failOver(synchronous: false)
        print(outcome)
        Attachment.record(outcome.description, named: "postgres-failover-asynchronous.txt")
        print(outcome.details.joined(separator: "\n"))
        // The new primary lacks the last events the devices applied: the events it numbers again are dropped by
        // devices that saw those numbers, until its log passes them (docs/SCALING.md). Served at the end.
        #expect(outcome.lastAnswered, "the last question asked is unanswered: \(outcome.details)")
        #expect(outcome.duplicated.isEmpty, "delivered more than once: \(outcome.duplicated)")
    }

    /// Runs the scenario with a synchronous or asynchronous standby and measures it. Throws when the family is not
    /// served again.
    static func failOver(synchronous: Bool) async throws -> Outcome {
        try await Fleet.with(spec, brokerArguments: arguments, timeout: .seconds(60)) { fleet in
            let standby = try await fleet.startStandby(synchronous: synchronous)
            let primary = try #require(fleet.postgresServer)
            let stream = FailoverStream(fleet)
            defer { stream.cancel() }
            // Flowing before the kill: some questions answered on both of the child's devices.
            try await fleet.eventually("questions answered before the kill", timeout: .seconds(30)) {
                stream.asks.filter { stream.isAnswered($0.id) }.count >= 10
            }
            var outcome = Outcome(synchronous: synchronous)
            // The standby falls behind for a second before the primary's host dies, as over a slow link: what the
            // primary commits meanwhile reaches the standby only if the commit waits for it.
            try await primary.pauseWALSender()
            try await Task.sleep(for: Self.lag)
            let killedAt = ContinuousClock.now
            try await primary.kill(everyProcess: true)
            try await standby.promote()
            outcome.promoted = .now - killedAt
            await fleet.moveStore(to: standby)
            let (servedAgain, firstServed) = try await servedAgain(stream, fleet: fleet, since: killedAt)
            outcome.servedAgain = servedAgain
            // A few more after recovery, then stop and let everything settle.
            try await Task.sleep(for: .seconds(3))
            await stream.stopAsking()
            try await settle(stream, outcome: &outcome, fleet: fleet, killedAt: killedAt, servedFrom: firstServed)
            await stream.close()
            return outcome
        }
    }

    /// How long after `since` a question asked after it was first answered on both of the child's devices, and when
    /// that question was asked.
    static func servedAgain(
        _ stream: FailoverStream, fleet: Fleet, since: ContinuousClock.Instant
    ) async throws -> (Duration, ContinuousClock.Instant) {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let first = stream.asks.first(where: { $0.sentAt > since && stream.isAnswered($0.id) }) {
                return (.now - since, first.sentAt)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw FleetError("the family was not served again within 60 s of the kill", logs: fleet.logs())
    }

    /// Waits for every accepted question to be answered (or 20 s after the family was served again), then counts
    /// what was lost, left unanswered and delivered twice.
    static func settle(
        _ stream: FailoverStream, outcome: inout Outcome, fleet: Fleet, killedAt: ContinuousClock.Instant,
        servedFrom: ContinuousClock.Instant
    ) async throws {
        let asks = stream.asks.filter { $0.acceptedAt != nil }
        outcome.acceptedBefore = asks.filter { $0.acceptedAt! < killedAt }.map(\.id)
        outcome.inFlight = asks.filter { $0.sentAt < killedAt && $0.acceptedAt! >= killedAt }.map(\.id)
        outcome.askedAfter = asks.filter { $0.sentAt >= killedAt }.map(\.id)
        let all = asks.map(\.id)
        try? await fleet.eventually("every accepted question is answered", timeout: .seconds(20)) {
            all.allSatisfy(stream.isAnswered)
        }
        outcome.lost = (outcome.acceptedBefore + outcome.inFlight).filter { !stream.isAnswered($0) }
        outcome.unansweredAfter = outcome.askedAfter.filter { !stream.isAnswered($0) }
        outcome.unansweredOnceServed = asks.filter { $0.sentAt >= servedFrom && !stream.isAnswered($0.id) }.map(\.id)
        outcome.duplicated = stream.asks.map(\.id).filter { stream.deliveries(of: $0).contains { $0 > 1 } }
        outcome.lastAnswered = asks.last.map { stream.isAnswered($0.id) } ?? false
        for ask in asks where !stream.isAnswered(ask.id) {
            outcome.details.append(
                "\(ask.id): sent \(ask.sentAt - killedAt), accepted \(ask.acceptedAt! - killedAt) from the kill, "
                    + "deliveries \(stream.deliveries(of: ask.id))")
        }
    }
}
