public import HearthCore
public import Logging
import Synchronization

/// Which partitions this broker serves now, with the lease epoch of each, and who owns the others (for redirects).
///
/// A partition is served only once its lease is held and the caches of its families were reloaded from the store
/// (`BrokerEngine.adopt`); it stops being served the moment the lease is known lost, and every write transaction
/// checks its epoch in the database anyway (`admit`), so a stale view can delay a command but never commit one.
public final class PartitionOwnership: Sendable {
    public let partitioning: Partitioning
    /// This broker's name in the cluster's registry.
    public let brokerName: String
    package let logger: Logger

    private struct State {
        var served: [Int: UInt64] = [:]
        var owners: [Int: PartitionOwner] = [:]
    }

    private let state = Mutex(State())
    /// Run after partitions stop being served (`whenDropping`).
    private let onDrop = Mutex<[@Sendable () -> Void]>([])

    public init(
        partitioning: Partitioning, brokerName: String, logger: Logger = Logger(label: "family-broker.cluster")
    ) {
        self.partitioning = partitioning
        self.brokerName = brokerName
        self.logger = logger
    }

    /// The partitions served now, each with its lease epoch.
    public var served: [Int: UInt64] { state.withLock { $0.served } }

    public func partition(of family: FamilyID?) -> Int { partitioning.partition(of: family) }

    /// Whether this broker serves `family` now.
    public func serves(_ family: FamilyID?) -> Bool {
        let partition = partition(of: family)
        return state.withLock { $0.served[partition] != nil }
    }

    /// The live owner of `family`'s partition as last read from the registry, unless it is this broker.
    public func owner(of family: FamilyID?) -> PartitionOwner? {
        let partition = partition(of: family)
        return state.withLock { $0.owners[partition] }.flatMap { $0.name == brokerName ? nil : $0 }
    }

    /// Starts serving `partitions` at these epochs (their caches were reloaded).
    package func markServed(_ partitions: [Int: UInt64]) {
        state.withLock { $0.served.merge(partitions) { _, new in new } }
    }

    /// Stops serving `partitions` at once; returns those that were served.
    @discardableResult
    package func drop(_ partitions: some Sequence<Int>) -> [Int] {
        let dropped = state.withLock { state in partitions.filter { state.served.removeValue(forKey: $0) != nil } }
        if !dropped.isEmpty { for action in onDrop.withLock({ $0 }) { action() } }
        return dropped
    }

    /// Runs `action` whenever partitions stop being served.
    package func whenDropping(_ action: @escaping @Sendable () -> Void) {
        onDrop.withLock { $0.append(action) }
    }

    /// Replaces the registry's view of who owns which partition.
    package func updateOwners(_ owners: [Int: PartitionOwner]) {
        state.withLock { $0.owners = owners }
    }
}
