package import BrokerCore
import BrokerPostgres
package import BrokerSQLite
import FamilyFileYAML
package import Foundation
import HearthProtocol
import HearthService
import HearthTransport
package import Logging
import ZeroMQ

extension FamilyBrokerService {
    /// Opens the store, applies the family file, binds the sockets: everything `run` runs.
    static func open(
        options: BrokerOptions, logger: Logger, clock: @escaping @Sendable () -> Date, health: BrokerHealth
    ) async throws -> RunningBroker {
        try FileManager.default.createDirectory(atPath: options.stateDirectory, withIntermediateDirectories: true)
        // The admin socket lives here: only the broker's user may reach it.
        chmod(options.stateDirectory, 0o700)
        let policy = try loadPolicy(options)
        let keys = try KeyFiles.loadOrGenerate(secretPath: options.secretKeyFile)
        let store = try await openStore(options, logger: logger)
        logger.debug("start-up: store open")
        // A read that waits on the disk, or on PostgreSQL's server.
        let sequences = SequenceBook(try await BlockingWork.run { try store.heads() })
        let configuration: @Sendable () throws -> Directory = { try loadDirectory(options, policy: policy) }
        // The family file is applied before any socket opens, so the first handshake already sees it.
        let (directory, startup) = try await startupDirectory(
            store, sequences: sequences, policy: policy, logger: logger, clock: clock, configuration: configuration)
        if !startup.events.isEmpty {
            logger.info("family file applied", metadata: ["events": "\(startup.events.count)"])
        }
        logger.debug("start-up: directory loaded", metadata: ["members": "\(directory.current.members.count)"])
        // The file's parse and the import free far more than the directory keeps.
        FreedMemory.release()
        let gate = Gate(
            directory: directory, commandRate: options.deviceCommandRate, commandBurst: options.deviceCommandBurst,
            cutOff: options.hostileCutOff)
        let subscribed = SubscribedMembers()
        let metrics = BrokerMetrics()
        let hostile = HostilePeers(book: gate.cutOff, counted: metrics.recordHostile(onEvents:), logger: logger)
        let sockets = try await BrokerSockets.open(
            options: options.sockets, keys: keys, gate: gate, sequences: sequences, subscribed: subscribed,
            hostile: hostile,
            logger: logger)
        logger.debug("start-up: sockets bound")
        #if PostgreSQL
        let ownership = (store is PostgresStore) ? Self.ownership(options, sockets: sockets, logger: logger) : nil
        #else
        let ownership: PartitionOwnership? = nil
        #endif
        let singles = SingleEventMembers()
        let versions = DeviceVersions()
        let engine = BrokerEngine(
            storage: store, directory: directory, sequences: sequences, logger: logger, policy: policy, clock: clock,
            deliver: { output in
                // On the store's writer, right after the commit: each member's events leave in sequence order.
                let frames = BrokerFrames.forReaders(events: output.events, frames: output.eventFrames) {
                    versions.readers(of: $0, among: $1, in: directory.current)
                }
                sockets.publish(
                    BrokerFrames.publications(events: output.events, frames: frames, singles: singles.all))
                metrics.record(output)
                logResolutions(output.events, logger: logger)
            }, ownership: ownership)
        let admin = AdminEndpoint(engine: engine, sockets: sockets, configuration: configuration, logger: logger)
        let broker = RunningBroker(
            options: options, logger: logger, health: health, store: store, engine: engine,
            intake: CommandIntake(engine: engine, singleEventMembers: singles, deviceVersions: versions), gate: gate,
            hostile: hostile, sockets: sockets, admin: admin, metrics: metrics, sequences: sequences,
            subscribed: subscribed)
        #if PostgreSQL
        var clustered = broker
        clustered.cluster = cluster(
            store, ownership: ownership, engine: engine, options: options, sockets: sockets, admin: admin,
            logger: logger)
        return clustered
        #else
        return broker
        #endif
    }

    static func loadPolicy(_ options: BrokerOptions) throws -> BrokerPolicy {
        var policy = BrokerPolicy()
        if let path = options.regionsFile { policy.regions = try RegionFile.load(path: path) }
        if let path = options.childDefaultsFile { policy.childDefaults = try ChildDefaults.load(path: path) }
        policy.maxFamilyMembers = options.maxFamilyMembers
        policy.agePromptTimeout = options.agePromptTimeout
        if let cost = options.passcodeCost { policy.passcodeCost = cost }
        if let askLimit = options.askLimit { policy.childDefaults.askLimit = askLimit }
        return policy
    }

    /// The directory as the broker stored it (empty on first start).
    static func storedDirectory(_ store: any BrokerStorage, policy: BrokerPolicy) async throws -> Directory {
        guard let file = try await store.reading({ store in try store.storedFile() }) else {
            return Directory(rules: policy.regions)
        }
        return try Directory(
            file: file, keysDirectory: "/", source: "the broker database", rules: policy.regions,
            maxFamilyMembers: Int.max)
    }

    static func loadDirectory(_ options: BrokerOptions, policy: BrokerPolicy) throws -> Directory {
        let file = try FamilyFile.load(path: options.familyFile)
        let keys = options.keysDirectory ?? (options.familyFile as NSString).deletingLastPathComponent
        return try Directory(
            file: file, keysDirectory: keys.isEmpty ? "." : keys, source: options.familyFile, rules: policy.regions,
            maxFamilyMembers: policy.maxFamilyMembers)
    }

    /// `startupDirectory` on the SQLite store, for hearth-loadtest's engine benchmark (the storage seam is internal).
    package static func startupDirectory(
        _ store: BrokerStore, sequences: SequenceBook, policy: BrokerPolicy, logger: Logger,
        clock: @escaping @Sendable () -> Date, configuration: () throws -> Directory
    ) async throws -> (directory: DirectoryBox, applied: BrokerEngine.Output) {
        try await startupDirectory(
            store as any BrokerStorage, sequences: sequences, policy: policy, logger: logger, clock: clock,
            configuration: configuration)
    }

    /// The directory the broker starts with, the stored one with the family file applied, and what applying it
    /// produced. Throws, storing nothing, as applying the file to the stored directory does.
    ///
    /// When every stored row is the file's entry as last applied, byte for byte, applying the file changes nothing and
    /// the stored directory is the file's: the file's directory is kept and the stored one is never built (a restart
    /// held both at once: a 538 MiB peak with 100,000 families, 294 MiB with one). Otherwise the stored directory is
    /// built and the file merged into it, as on a first start or after an admin edit.
    static func startupDirectory(
        _ store: any BrokerStorage, sequences: SequenceBook, policy: BrokerPolicy, logger: Logger,
        clock: @escaping @Sendable () -> Date,
        configuration: () throws -> Directory
    ) async throws -> (directory: DirectoryBox, applied: BrokerEngine.Output) {
        let configured: Directory
        do {
            configured = try configuration()
        } catch {
            // The stored directory was built first before: its error, if it has one, still comes first.
            _ = try await storedDirectory(store, policy: policy)
            throw error
        }
        if try await store.reading({ store in try store.holdsExactly(configured.file) }) {
            return (DirectoryBox(Directory(storedFormOf: configured, rules: policy.regions)), BrokerEngine.Output())
        }
        let directory = DirectoryBox(try await storedDirectory(store, policy: policy))
        let applied = try await BrokerEngine(
            storage: store, directory: directory, sequences: sequences, logger: logger, policy: policy, clock: clock,
            deliver: { _ in }
        ).applyConfiguration(configured)
        return (directory, applied)
    }
}

extension FamilyBrokerService {
    /// On the PostgreSQL store: this broker's view of the cluster's partitions, serving none yet.
    static func ownership(_ options: BrokerOptions, sockets: BrokerSockets, logger: Logger) -> PartitionOwnership {
        PartitionOwnership(
            partitioning: Partitioning(count: options.cluster.partitions),
            brokerName: options.cluster.name(boundIngress: sockets.ingress), logger: logger)
    }

    #if PostgreSQL
    /// The broker's part in its cluster, on the PostgreSQL store (nil on SQLite).
    static func cluster(
        _ store: any BrokerStorage, ownership: PartitionOwnership?, engine: BrokerEngine, options: BrokerOptions,
        sockets: BrokerSockets, admin: AdminEndpoint, logger: Logger
    ) -> BrokerCluster? {
        guard let postgres = store as? PostgresStore, let ownership else { return nil }
        let advertised = (
            ingress: options.cluster.advertiseIngress ?? sockets.ingress,
            egress: options.cluster.advertiseEgress ?? sockets.egress, publicKey: sockets.keys.publicKey
        )
        logger.info(
            "joining the cluster",
            metadata: [
                "broker": "\(ownership.brokerName)", "partitions": "\(ownership.partitioning.count)",
                "advertisedIngress": "\(advertised.ingress)", "advertisedEgress": "\(advertised.egress)",
            ])
        return BrokerCluster(
            store: postgres, ownership: ownership, engine: engine, options: options.cluster, advertised: advertised,
            logger: logger, cutOff: { keys in await admin.cutOff(keys: keys) })
    }
    #endif
}
