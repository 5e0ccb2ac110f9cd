import BrokerCore
import BrokerPostgres
import BrokerSQLite
import Foundation
import HearthCore
import HearthProtocol
import Logging
import ServiceLifecycle
import ZeroMQ

/// The broker's parts once open, and the loops that run them: commands, heartbeats, sweeps.
struct RunningBroker: Sendable {
    let options: BrokerOptions
    let logger: Logger
    let health: BrokerHealth
    let store: any BrokerStorage
    let engine: BrokerEngine
    let intake: CommandIntake
    let gate: Gate
    let hostile: HostilePeers
    let sockets: BrokerSockets
    let admin: AdminEndpoint
    let metrics: BrokerMetrics
    let sequences: SequenceBook
    let subscribed: SubscribedMembers
    #if PostgreSQL
    /// The broker's part in its cluster, on the PostgreSQL store (set once open, nil on SQLite).
    var cluster: BrokerCluster? = nil
    #endif

    /// Writes the ready file, logs where it listens, and reports ready.
    func announce() throws {
        let ready = BrokerReady(
            ingress: sockets.ingress, egress: sockets.egress, publicKey: sockets.keys.publicKey, pid: getpid())
        try JSONEncoder().encode(ready).write(to: URL(fileURLWithPath: options.readyFile), options: .atomic)
        let directory = engine.directory.current
        logger.info(
            "family-broker ready",
            metadata: [
                "ingress": "\(sockets.ingress)", "egress": "\(sockets.egress)",
                "publicKey": "\(sockets.keys.publicKey)",
                "admin": "\(options.adminSocket)", "members": "\(directory.members.count)",
                "devices": "\(directory.devices.count)",
            ])
        health.markReady(ingress: sockets.ingress, egress: sockets.egress)
    }

    /// Reads and runs batches until SIGTERM, in two stages: this task admits and decodes what the socket loop read
    /// (`prepare`) while the writer commits the batch before (`commitPrepared`), which takes everything prepared
    /// meanwhile as its next batch, on a thread of its own (`WriterThread`). After SIGTERM only the batch in hand
    /// finishes (committed, then answered). What is still queued or prepared was never acknowledged: dropping it keeps
    /// the shutdown bound under a flood, and its senders retry.
    func serve() async {
        let loop = sockets.loop
        let health = self.health
        let prepared = Mailbox<CommandIntake.Prepared>()
        let taken = Mailbox<Void>()
        let writer = WriterThread(name: "broker-writer")
        let lane = PasscodeLane(name: "broker-hashing")
        defer {
            writer.stop()
            lane.stop()
        }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask(executorPreference: writer) {
                    await commitPrepared(prepared, taken: taken)
                    taken.finish()
                }
                for await batch in loop.inbound {
                    if health.isStopping { break }
                    let ingress = batch.filter { $0.socket == BrokerSockets.Slot.ingress }
                    if !(await prepare(ingress, into: prepared, taken, lane: lane)) { break }
                    for item in batch where item.socket == BrokerSockets.Slot.admin {
                        await admin.handle(item.message.frames)
                    }
                }
                prepared.finish()
            }
        } onGracefulShutdown: {
            // The batch being committed still gets its replies; nothing more is read or started.
            health.markStopping()
            loop.inbound.finish()
        }
    }

    /// One read from the ingress socket: the gate admits (its refusals answered at once), the intake decodes and
    /// checks, and the batch waits in `prepared` for the writer. Waits while `preparedLimit` batches already wait, so
    /// that a writer behind leaves the rest in the socket loop's bounded queue. False once the writer stopped.
    func prepare(
        _ batch: [SocketLoop.Inbound], into prepared: Mailbox<CommandIntake.Prepared>, _ taken: Mailbox<Void>,
        lane: PasscodeLane
    ) async -> Bool {
        var admitted: [CommandIntake.Inbound] = []
        var answered: [SocketLoop.Outgoing] = []
        admitted.reserveCapacity(batch.count)
        var dropped: [ZMQMessage] = []
        for item in batch {
            let message = item.message
            switch gate.admit(message.frames, discardedFrames: message.discardedFrames, device: message.userId) {
            case .admit(let inbound): admitted.append(inbound)
            case .answer(let routing, let frame):
                answered.append(.init([routing, frame], on: BrokerSockets.Slot.ingress))
            case .drop: continue
            case .hostile(let device, let reason):
                hostile.cutOff(device, reason: reason, onEvents: false)
                dropped.append(message)
            case .disconnect:
                dropped.append(message)
            }
        }
        sockets.loop.send(answered)
        if !dropped.isEmpty {
            let dropped = dropped
            sockets.loop.perform { sockets in
                for message in dropped { HostilePeers.drop(message, from: sockets[BrokerSockets.Slot.ingress]) }
            }
        }
        guard !admitted.isEmpty else { return true }
        var checked = intake.prepare(admitted)
        for single in checked.removePasscodeCommands() { hashBeside(single, into: prepared, lane: lane) }
        guard checked.count > 0 else { return true }
        while prepared.count >= Self.preparedLimit {
            guard await taken.take() != nil else { return false }
        }
        prepared.push([checked])
        return true
    }

    /// A passcode command, hashed on the lane and then handed to the writer as a batch of its own: the commands read
    /// with it, and those read after, do not wait for its scrypt. Its reply may follow theirs.
    private func hashBeside(
        _ single: CommandIntake.Prepared, into prepared: Mailbox<CommandIntake.Prepared>, lane: PasscodeLane
    ) {
        let engine = intake.engine
        let store = self.store
        let sockets = self.sockets
        Task {
            var single = single
            let inputs = await PasscodeWork.inputs(
                single.requests, store: store, policy: engine.policy, directory: engine.directory.current,
                now: engine.now)
            guard let hashed = await lane.run({ PasscodeWork.hash(inputs) }) else {
                let busy = ErrorReply(.rateLimited, "too many passcodes are being checked; try again in a moment")
                sockets.reply(
                    BrokerFrames.reply(.failure(busy), requestID: single.requestIDs[0]),
                    to: single.inbound[0].routingID)
                return
            }
            // One command: its index in `requests` is its index in `inbound`.
            single.hashed = hashed
            prepared.push([single])
        }
    }

    /// Batches prepared and not yet taken by the writer, at most: beyond it the socket loop's queue holds the rest.
    static let preparedLimit = 256

    /// Commands per transaction on a store that sets no bound (SQLite). A flood leaves thousands prepared; one
    /// transaction of all of them would hold a SIGTERM past its bound, since the batch in hand always finishes. At
    /// 1,024 the writer's CPU per command is within 7% of an unbounded batch's (decision 0007).
    static let commandsPerCommit = 1_024

    /// The writer's stage: everything prepared since its last commit, committed in transactions of at most the store's
    /// bound (`commandsPerCommit` when it has none), each answered once it committed.
    func commitPrepared(_ prepared: Mailbox<CommandIntake.Prepared>, taken: Mailbox<Void>) async {
        let limit = intake.engine.maxCommandsPerTransaction ?? Self.commandsPerCommit
        for await batches in prepared {
            taken.push([()])
            // Each group is answered once it committed, not the whole take at its end; after SIGTERM the groups
            // not yet started are dropped unacknowledged.
            for batch in CommandIntake.Prepared.grouping(batches, limit: limit) {
                if health.isStopping { return }
                let started = ContinuousClock.now
                let (replies, _) = await intake.run(batch)
                sockets.reply(replies)
                metrics.record(batch.inbound, replies: replies, duration: ContinuousClock.now - started)
            }
        }
    }

    /// Every `heartbeatInterval`: each subscribed member's head on its topic, the health beat and the gauges.
    func heartbeats() async {
        var reportedDrops: UInt64 = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: options.heartbeatInterval)
            let drops = sockets.loop.droppedCount
            if drops > reportedDrops {
                // Slow subscribers past their high-water mark: they recover by syncing, nothing is lost.
                logger.notice(
                    "dropped messages to slow peers",
                    metadata: ["dropped": "\(drops - reportedDrops)", "total": "\(drops)"])
            }
            metrics.refresh(
                subscribedMembers: subscribed.all.count, newlyDropped: drops - min(drops, reportedDrops),
                checkpoints: checkpointCounts)
            reportedDrops = max(drops, reportedDrops)
            if let ownership = engine.ownership {
                metrics.recordPartitions(ownership.served, of: ownership.partitioning.count)
            }
            health.beat()
            let directory = engine.directory.current
            // A lost family's devices hear nothing more here: their next command gets the redirect.
            let served = subscribed.all.filter { engine.ownership?.serves(directory.members[$0]?.familyID) ?? true }
            sockets.publish(
                served.map { .init(member: $0, frame: BrokerFrames.heartbeat(head: sequences.head(of: $0))) })
        }
    }

    /// Every `expiryInterval`: expired questions resolved, age range prompts and anniversaries kept.
    func sweeps() async {
        while !Task.isCancelled {
            // Cancelled: the broker is stopping, and a sweep begun now would only fail with the cancellation.
            do { try await Task.sleep(for: options.expiryInterval) } catch { return }
            do {
                let output = try await engine.expireQuestions()
                if !output.events.isEmpty {
                    logger.info("questions expired", metadata: ["events": "\(output.events.count)"])
                }
            } catch {
                sweepFailed("expiry sweep failed", error)
            }
            do {
                try await engine.maintainAgeRanges()
            } catch {
                sweepFailed("age range sweep failed", error)
            }
        }
    }

    /// A store that cannot store now is logged once by `storeProbes`; a sweep tried again each second says so only
    /// at debug level.
    private func sweepFailed(_ message: Logger.Message, _ error: any Error) {
        // A sweep cut short by a clean shutdown did not fail.
        if error is CancellationError, Task.isCancelled { return }
        logger.log(level: error is StoreUnavailable ? .debug : .error, message, metadata: ["error": "\(error)"])
    }

    /// Flushes and closes the sockets, removes the ready file and the admin socket.
    func close() async {
        health.markStopped()
        await sockets.loop.stop()
        try? FileManager.default.removeItem(atPath: options.readyFile)
        try? FileManager.default.removeItem(atPath: options.adminSocket)
        let checkpoints = checkpointCounts
        logger.info(
            "family-broker stopped",
            metadata: [
                "checkpoints":
                    "\(checkpoints.background) in the background (\(checkpoints.busy) skipped), \(checkpoints.writer) by the writer"
            ])
    }
}
