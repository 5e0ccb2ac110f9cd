#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import Logging
import Synchronization

/// Keeps this broker's place in the cluster: registers it, renews its leases every third of a lease, takes
/// partitions nobody holds, and rebalances: each live broker aims at ceil(partitions / live brokers), and one over
/// that share releases its surplus while another is under it and no partition is free.
///
/// Its SQL runs on a connection and Dispatch queue of its own (`PostgresSession`), never on the cooperative pool;
/// taking a partition goes through the engine's writer (`BrokerEngine.adopt`), which reloads its caches first.
package final class LeaseKeeper: Sendable {
    /// What one round found and did in the database.
    struct Round: Sendable {
        var renewed: [Int: UInt64] = [:]
        var acquired: [Int: UInt64] = [:]
        /// Partitions to release (over this broker's share).
        var surplus: [Int: UInt64] = [:]
        var owners: [Int: PartitionOwner] = [:]
        var liveBrokers = 0
    }

    let session: PostgresSession
    let ownership: PartitionOwnership
    let engine: BrokerEngine
    let advertised: (ingress: String, egress: String, publicKey: String)
    let leaseDuration: Duration
    let logger: Logger
    /// When the last successful round started (its renewals came later): past a lease from then, nothing is served.
    private let lastRenewal = Mutex<ContinuousClock.Instant?>(nil)

    init(
        session: PostgresSession, ownership: PartitionOwnership, engine: BrokerEngine,
        advertised: (ingress: String, egress: String, publicKey: String), leaseDuration: Duration, logger: Logger
    ) {
        self.session = session
        self.ownership = ownership
        self.engine = engine
        self.advertised = advertised
        self.leaseDuration = leaseDuration
        self.logger = logger
    }

    deinit {
        // Closed on its own queue, which keeps the session until then (a connection must be closed before it goes).
        session.close()
    }

    var leaseSeconds: Double {
        Double(leaseDuration.components.seconds) + Double(leaseDuration.components.attoseconds) / 1e18
    }

    /// Rounds every third of a lease until cancelled; then the leases are released for the others to take.
    package func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.watchExpiry() }
            while !Task.isCancelled {
                try? await Task.sleep(for: leaseDuration / 3)
                if Task.isCancelled { break }
                await round()
            }
            group.cancelAll()
        }
    }

    /// Stops serving once the leases may have expired, also while a round still waits on a silent server (until its
    /// statement's deadline), which may be longer than a lease.
    private func watchExpiry() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: leaseDuration / 10)
            giveUpIfExpired()
        }
    }

    /// One round: register, renew, take or release, and serve what was taken.
    package func round() async {
        let held = ownership.served
        // The server extends the leases after this instant: they hold at least a lease from it.
        let started = ContinuousClock.now
        let round: Round
        do {
            round = try await session.run { [self] connection in
                try plan(
                    LeaseTable(
                        connection: connection, logger: logger, broker: ownership.brokerName,
                        leaseSeconds: leaseSeconds), held: held)
            }
        } catch {
            logger.error("lease round failed", metadata: ["error": "\(error)"])
            giveUpIfExpired()
            return
        }
        lastRenewal.withLock { $0 = started }
        ownership.updateOwners(round.owners)
        let lost = ownership.drop(held.filter { round.renewed[$0.key] != $0.value }.keys)
        if !lost.isEmpty { logger.warning("partitions lost", metadata: ["partitions": "\(lost.sorted())"]) }
        if !round.surplus.isEmpty { await release(round.surplus, liveBrokers: round.liveBrokers) }
        guard !round.acquired.isEmpty else { return }
        do {
            let adopted = try await engine.adopt(round.acquired)
            logger.notice(
                "partitions taken", metadata: ["partitions": "\(adopted.sorted())", "epochs": "\(round.acquired)"])
        } catch {
            // Still this broker's in the database: the next round takes them again, at a new epoch.
            logger.error("could not take partitions", metadata: ["error": "\(error)"])
        }
    }

    /// The round's work in the database, on the keeper's queue.
    private func plan(_ table: LeaseTable, held: [Int: UInt64]) throws -> Round {
        var round = Round()
        try table.register(ingress: advertised.ingress, egress: advertised.egress, publicKey: advertised.publicKey)
        round.renewed = try table.renew(Array(held.keys))
        let live = try table.liveBrokers()
        round.liveBrokers = live.count
        let partitions = ownership.partitioning.count
        let share = (partitions + max(live.count, 1) - 1) / max(live.count, 1)
        let kept = round.renewed.filter { held[$0.key] == $0.value }
        if kept.count < share {
            round.acquired = try table.acquire(upTo: share - kept.count, excluding: Array(kept.keys))
        } else if kept.count > share {
            let counts = try table.leaseCounts()
            if counts.free == 0, live.contains(where: { counts.held[$0, default: 0] < share }) {
                let surplus = kept.keys.sorted().suffix(kept.count - share)
                round.surplus = kept.filter { surplus.contains($0.key) }
            }
        }
        round.owners = try table.owners()
        return round
    }

    /// Stops serving `surplus` first, then ends its leases for the others to take.
    private func release(_ surplus: [Int: UInt64], liveBrokers: Int) async {
        ownership.drop(surplus.keys)
        do {
            try await session.run { [self] connection in
                try LeaseTable(
                    connection: connection, logger: logger, broker: ownership.brokerName,
                    leaseSeconds: leaseSeconds
                ).release(surplus)
            }
            logger.notice(
                "partitions released for other brokers",
                metadata: ["partitions": "\(surplus.keys.sorted())", "liveBrokers": "\(liveBrokers)"])
        } catch {
            logger.error("could not release partitions", metadata: ["error": "\(error)"])
        }
    }

    /// Past a lease without a renewal, every lease may have been taken: nothing is served until the next round.
    private func giveUpIfExpired() {
        let last = lastRenewal.withLock { $0 }
        guard let last, ContinuousClock.now - last > leaseDuration else { return }
        let dropped = ownership.drop(ownership.served.keys)
        if !dropped.isEmpty {
            logger.error(
                "leases not renewed for a lease's time: serving nothing",
                metadata: ["partitions": "\(dropped.sorted())"])
        }
    }

    /// Ends this broker's leases and leaves the registry, so that the others take its partitions at once.
    package func resign() async {
        ownership.drop(ownership.served.keys)
        do {
            try await session.run { [self] connection in
                try LeaseTable(
                    connection: connection, logger: logger, broker: ownership.brokerName,
                    leaseSeconds: leaseSeconds
                ).resign()
            }
        } catch {
            logger.warning("could not release the leases at shutdown", metadata: ["error": "\(error)"])
        }
        session.close()
    }
}
#endif
