import HearthProtocol

extension CommandIntake {
    /// A batch decoded and checked, waiting for the writer. The broker prepares the next batch while the writer
    /// commits the one before, so decoding and checking are off the path every command waits on.
    public struct Prepared: Sendable {
        /// The commands as read, in order.
        var inbound: [Inbound] = []
        /// Each command's answer when it was refused before the writer (nil: it is in `requests`).
        var outcomes: [CommandOutcome?] = []
        var requestIDs: [UInt64] = []
        /// The commands for the writer, and each one's index in `inbound`.
        var requests: [BrokerRequest] = []
        var positions: [Int] = []
        /// The directory's generation the commands were checked against; nil when parts were checked against
        /// different ones.
        var generation: UInt64?

        /// Commands in the batch.
        public var count: Int { inbound.count }

        /// Appends a batch prepared later: both run in one transaction, answered in the order they came.
        public mutating func append(_ later: Prepared) {
            if inbound.isEmpty {
                self = later
                return
            }
            let offset = inbound.count
            inbound += later.inbound
            outcomes += later.outcomes
            requestIDs += later.requestIDs
            requests += later.requests
            positions += later.positions.map { $0 + offset }
            if generation != later.generation { generation = nil }
        }

        /// The batches as one, in order.
        public static func merging(_ batches: [Prepared]) -> Prepared {
            var merged = Prepared()
            for batch in batches { merged.append(batch) }
            return merged
        }

        /// The batches merged, in order, into groups of at most `limit` commands (a batch longer than that alone):
        /// a group per transaction, answered as soon as it commits. No limit: one group.
        public static func grouping(_ batches: [Prepared], limit: Int?) -> [Prepared] {
            guard let limit else { return [merging(batches)] }
            var groups: [Prepared] = []
            var group = Prepared()
            for batch in batches {
                if group.count > 0, group.count + batch.count > limit {
                    groups.append(group)
                    group = Prepared()
                }
                group.append(batch)
            }
            if group.count > 0 { groups.append(group) }
            return groups
        }
    }
}
