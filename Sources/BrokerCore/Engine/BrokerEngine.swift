package import Foundation
public import HearthCore
public import HearthProtocol
package import Logging
import Synchronization

/// Applies devices' commands, operators' admin commands and the passing of time: authorization, Family Sharing and
/// Communication Limits policy, storage and events. It takes typed commands and returns typed outcomes; the wire is
/// `CommandIntake`'s and `BrokerFrames`' business, the SQL its store's (`BrokerStorage`).
///
/// Every change runs in one store transaction: a batch of commands in one (group commit), each command in a
/// savepoint so that one failure changes nothing and does not undo its neighbours. A batch of devices' commands
/// runs first without savepoints, which cost SQLite a copy of every page a command changes: commands check before
/// they change, so one that fails has almost always changed nothing; when one failed after a change, the
/// transaction is dropped and the batch runs again with savepoints. Sequence numbers are taken and
/// advanced inside it, and `deliver` is called right after its commit, before the next transaction, so events leave
/// only once committed and in commit order, whichever task started the work.
public final class BrokerEngine: Sendable {
    /// What one committed transaction produced.
    public struct Output: Sendable {
        public var events: [Event] = []
        /// The frame publishing each of `events`, in the same order.
        public var eventFrames: [[UInt8]] = []
        /// Devices revoked or removed by this transaction: their open connections must be closed.
        public var disconnectedDevices: [DeviceID] = []

        package init(events: [Event] = [], eventFrames: [[UInt8]] = [], disconnectedDevices: [DeviceID] = []) {
            self.events = events
            self.eventFrames = eventFrames
            self.disconnectedDevices = disconnectedDevices
        }

        /// Adds what a later transaction produced.
        mutating func append(_ later: Output) {
            events += later.events
            eventFrames += later.eventFrames
            disconnectedDevices += later.disconnectedDevices
        }
    }

    let store: any BrokerStorage
    public let directory: DirectoryBox
    public let sequences: SequenceBook
    public let policy: BrokerPolicy
    /// On a cluster (the PostgreSQL store): the partitions this broker serves; every write checks their leases.
    public let ownership: PartitionOwnership?
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let deliver: @Sendable (Output) -> Void
    /// Batches run again with a savepoint per command, because a command failed after a change (`SavepointNeeded`).
    let redoneBatches = Atomic<Int>(0)
    /// The most devices' commands in one transaction: the store's bound, unless a test sets its own.
    package let maxCommandsPerTransaction: Int?

    /// An engine over `storage`; on a cluster, `ownership` says which partitions this broker serves. The SQLite
    /// store's shorter initializer is FamilyBroker's (`BrokerEngine+SQLite`).
    package init(
        storage: any BrokerStorage, directory: DirectoryBox, sequences: SequenceBook, logger: Logger,
        policy: BrokerPolicy,
        clock: @escaping @Sendable () -> Date, deliver: @escaping @Sendable (Output) -> Void,
        ownership: PartitionOwnership? = nil, maxCommandsPerTransaction: Int? = nil
    ) {
        self.ownership = ownership
        if let ownership, let cache = storage as? any OwnerCaching {
            // A lease lost: its rows may be written by the next owner.
            ownership.whenDropping { cache.forgetOwnerCache() }
        }
        self.maxCommandsPerTransaction = maxCommandsPerTransaction ?? storage.maxCommandsPerTransaction
        self.store = storage
        self.directory = directory
        self.sequences = sequences
        self.logger = logger
        self.policy = policy
        self.clock = clock
        self.deliver = deliver
    }

    /// The engine's time now (its clock).
    package var now: Date { clock() }

    /// Runs a batch of checked commands: one outcome per request, in order, and what was committed (and delivered).
    /// A batch longer than the store's `maxCommandsPerTransaction` runs as several transactions, in order.
    /// `hashed`: passcode work already done, by request index (`PasscodeLane`); what is missing is done here.
    package func process(
        _ requests: [BrokerRequest], hashed: [Int: PasscodeWork.Prepared] = [:]
    ) async -> (outcomes: [CommandOutcome], output: Output) {
        guard let limit = maxCommandsPerTransaction, requests.count > limit else {
            return await commit(requests, hashed: hashed)
        }
        var outcomes: [CommandOutcome] = []
        var output = Output()
        outcomes.reserveCapacity(requests.count)
        for start in stride(from: 0, to: requests.count, by: limit) {
            let end = min(start + limit, requests.count)
            let part = await commit(
                Array(requests[start..<end]),
                hashed: Dictionary(
                    uniqueKeysWithValues: hashed.filter { (start..<end).contains($0.key) }.map {
                        ($0.key - start, $0.value)
                    }))
            outcomes += part.outcomes
            output.append(part.output)
        }
        return (outcomes, output)
    }

    /// Runs `requests` in one transaction (or, when that fails, as `failedBatch` says).
    private func commit(
        _ requests: [BrokerRequest], hashed: [Int: PasscodeWork.Prepared]
    ) async -> (outcomes: [CommandOutcome], output: Output) {
        var secrets = hashed
        if requests.indices.contains(where: { hashed[$0] == nil && PasscodeWork.mayHash(requests[$0].command) }) {
            // Passcode commands that did not come by the broker's lane (the intake used directly, the engine
            // benchmark) are hashed here, holding up the batch.
            let prepared = await PasscodeWork.prepare(
                requests, store: store, policy: policy, directory: directory.current, now: clock())
            secrets.merge(prepared) { lane, _ in lane }
        }
        let partitions = ownership.map { ownership in
            let directory = directory.current
            return Set(requests.map { ownership.partition(of: directory.members[$0.memberID]?.familyID) })
        }
        func attempt(ahead: Bool) async throws -> (outcomes: [CommandOutcome], output: Output) {
            do {
                return try await run(requests, secrets: secrets, partitions: partitions, unguarded: true, ahead: ahead)
            } catch is SavepointNeeded {
                redoneBatches.add(1, ordering: .relaxed)
                logger.debug("a command failed after a change: the batch runs again with a savepoint per command")
                return try await run(requests, secrets: secrets, partitions: partitions, unguarded: false, ahead: ahead)
            }
        }
        do {
            do {
                return try await attempt(ahead: true)
            } catch is FenceRefused {
                // A lease moved: read them now, which drops those lost, and answers their commands so.
                logger.debug("the leases checked ahead were refused: the batch runs again with its leases read")
                return try await attempt(ahead: false)
            }
        } catch {
            return await failedBatch(requests, error: error)
        }
    }

    /// The batch in one transaction. `unguarded`: its commands without savepoints, which fails the transaction with
    /// `SavepointNeeded` if one of them fails after a change. `ahead`: its leases checked without waiting
    /// (`PartitionOwnership.admitAhead`).
    private func run(
        _ requests: [BrokerRequest], secrets: [Int: PasscodeWork.Prepared], partitions: Set<Int>?, unguarded: Bool,
        ahead: Bool
    ) async throws -> (outcomes: [CommandOutcome], output: Output) {
        try await transacting(admitting: partitions, ahead: ahead) { tx in
            tx.secrets = secrets
            tx.unguarded = unguarded
            tx.reserveEvents(forCommands: requests.count)
            return requests.map { request in
                // The lease moved since the intake checked it: nothing of this command may be stored here.
                guard tx.mayWrite(member: request.memberID) else { return .failure(Self.partitionMoved) }
                return tx.inSavepoint(device: request.deviceID) { tx in try tx.handle(request) }
            }
        }
    }

    /// The commit itself failed: nothing is stored, so every command gets an error and no event leaves. When the
    /// store cannot store now (a lost server, a full or failing disk: transient, devices keep the command and send
    /// it again), the link commands of the batch (hello, ping, sync), which store nothing, are answered from committed
    /// state in a transaction of their own: a broker whose disk is full still keeps its devices linked and in sync.
    private func failedBatch(
        _ requests: [BrokerRequest], error: any Error
    ) async -> (outcomes: [CommandOutcome], output: Output) {
        guard error is StoreUnavailable else {
            logger.error("batch commit failed", metadata: ["error": "\(error)", "commands": "\(requests.count)"])
            let reply =
                error is PartitionMoved
                ? Self.partitionMoved : ErrorReply(.internalError, "the broker could not commit; retry")
            return (Array(repeating: CommandOutcome.failure(reply), count: requests.count), Output())
        }
        // Logged once by the store probe ("store cannot store"), not per batch: devices keep retrying meanwhile.
        logger.debug("batch commit failed", metadata: ["error": "\(error)", "commands": "\(requests.count)"])
        let reply = ErrorReply(.brokerUnavailable, "the broker cannot store now (\(error)); nothing was stored, retry")
        var outcomes = Array(repeating: CommandOutcome.failure(reply), count: requests.count)
        let link = requests.indices.filter { index in
            switch requests[index].command {
            case .hello, .ping, .sync: true
            default: false
            }
        }
        guard !link.isEmpty, link.count < requests.count else { return (outcomes, Output()) }
        let answered = try? await transacting { tx in
            link.map { index in
                tx.inSavepoint(device: requests[index].deviceID) { tx in try tx.handle(requests[index]) }
            }
        }
        for (index, outcome) in zip(link, answered?.0 ?? []) { outcomes[index] = outcome }
        return (outcomes, Output())
    }

    /// Resolves every pending question whose expiration date has passed with its default choice (reason `expired`).
    @discardableResult
    public func expireQuestions() async throws -> Output {
        try await transacting(admitting: ownership.map { Set($0.served.keys) }) { tx in try tx.expireQuestions() }.1
    }

    /// Applies the family file's families whose entry changed since last applied (at start-up and on `reload`).
    /// Throws `ConfigurationError` and changes nothing when the result would be invalid.
    @discardableResult
    public func applyConfiguration(_ configured: Directory) async throws -> Output {
        try await transact { tx in _ = try tx.applyConfiguration(configured) }
    }

    /// Runs one admin command; `configuration` reads the family file for `reload`.
    public func admin(
        _ request: AdminRequest, configuration: @escaping @Sendable () throws -> Directory
    ) async -> Result<AdminResult, ErrorReply> {
        do {
            var (result, output) = try await transacting { tx in try tx.admin(request, configuration: configuration) }
            result.disconnectedDevices = output.disconnectedDevices
            return .success(result)
        } catch let error as ErrorReply {
            return .failure(error)
        } catch let error as ConfigurationError {
            return .failure(ErrorReply(.invalidRequest, error.description))
        } catch let error as PartitionMoved {
            return .failure(ErrorReply(.brokerUnavailable, "\(error): run it on the broker that owns the family"))
        } catch {
            logger.error("admin command failed", metadata: ["command": "\(request.command)", "error": "\(error)"])
            return .failure(ErrorReply(.internalError, "the broker could not apply this command; nothing was changed"))
        }
    }

    /// One store transaction: heads and directory read in it, advanced and delivered once it committed.
    func transact(_ work: @escaping @Sendable (inout Transaction) throws -> Void) async throws -> Output {
        try await transacting(work).1
    }

    /// One transaction; on a cluster, the leases of `partitions` are checked (and locked) first (`ahead`: without
    /// waiting, `PartitionOwnership.admitAhead`), and any other partition the transaction gives an event to is checked
    /// before the commit (`PartitionMoved` otherwise).
    func transacting<T: Sendable>(
        admitting partitions: Set<Int>? = nil, ahead: Bool = false,
        _ work: @escaping @Sendable (inout Transaction) throws -> T
    ) async throws -> (T, Output) {
        let policy = self.policy
        let logger = self.logger
        let clock = self.clock
        let ownership = self.ownership
        return try await store.transaction(
            { store in
                var tx = Transaction(
                    store: store, directory: self.directory.current, heads: self.sequences.snapshot(), now: clock(),
                    policy: policy,
                    logger: logger)
                if let ownership {
                    tx.partitioning = ownership.partitioning
                    tx.admitted =
                        try ahead
                        ? ownership.admitAhead(partitions ?? [], in: store)
                        : ownership.admit(partitions ?? [], in: store)
                }
                let result = try work(&tx)
                if let failure = tx.storeFailure { throw failure }
                if tx.savepointNeeded { throw SavepointNeeded() }
                if let ownership { try Self.fence(&tx, ownership: ownership) }
                let output = Output(
                    events: tx.events, eventFrames: tx.eventFrames, disconnectedDevices: tx.disconnectedDevices)
                return Committed(
                    result: result, output: output, heads: tx.changedHeads,
                    directory: tx.directoryChanged ? tx.directory : nil)
            },
            committed: { committed in
                if let directory = committed.directory { self.directory.replace(directory) }
                // Queued before the heads advance: a heartbeat reads a head on another thread and is queued after
                // it, so it never leaves ahead of the events it counts (a device would take that for a gap).
                self.deliver(committed.output)
                self.sequences.update(committed.heads)
            }
        ).pair
    }

    /// What a transaction hands to its commit hook.
    private struct Committed<T: Sendable>: Sendable {
        var result: T
        var output: Output
        var heads: [MemberID: UInt64]
        var directory: Directory?

        var pair: (T, Output) { (result, output) }
    }
}
