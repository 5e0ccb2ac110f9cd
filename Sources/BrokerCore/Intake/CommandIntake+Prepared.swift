import HearthProtocol

extension CommandIntake {
    /// A batch decoded and checked, waiting for the writer. The broker prepares the next batch while the writer
    /// commits the one before, so decoding and checking are off the path every command waits on.
    public struct Prepared: Sendable {
        /// The commands as read, in order.
        package var inbound: [Inbound] = []
        /// Each command's answer when it was refused before the writer (nil: it is in `requests`).
        var outcomes: [CommandOutcome?] = []
        package var requestIDs: [UInt64] = []
        /// The commands for the writer, and each one's index in `inbound`.
        package var requests: [BrokerRequest] = []
        var positions: [Int] = []
        /// The directory's generation the commands were checked against; nil when parts were checked against
        /// different ones.
        var generation: UInt64?
        /// Passcode work done beside the pipeline (`PasscodeLane`), by index in `inbound`.
        package var hashed: [Int: PasscodeWork.Prepared] = [:]

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
            for (index, work) in later.hashed { hashed[index + offset] = work }
            if generation != later.generation { generation = nil }
        }

        /// The passcode work done for `requests`, by index in `requests`.
        var hashedRequests: [Int: PasscodeWork.Prepared] {
            guard !hashed.isEmpty else { return [:] }
            var byRequest: [Int: PasscodeWork.Prepared] = [:]
            for (index, position) in positions.enumerated() { byRequest[index] = hashed[position] }
            return byRequest
        }

        /// Takes the commands that may need a passcode hashed out of the batch, each as a batch of its own, so that
        /// the rest goes to the writer at once while they are hashed (`PasscodeLane`).
        package mutating func removePasscodeCommands() -> [Prepared] {
            let taken = requests.indices.filter { PasscodeWork.mayHash(requests[$0].command) }
            guard !taken.isEmpty else { return [] }
            let singles = taken.map { index in
                let position = positions[index]
                return Prepared(
                    inbound: [inbound[position]], outcomes: [nil], requestIDs: [requestIDs[position]],
                    requests: [requests[index]], positions: [0], generation: generation)
            }
            let removed = Set(taken.map { positions[$0] })
            var rest = Prepared(generation: generation)
            var kept: [Int: Int] = [:]
            for position in inbound.indices where !removed.contains(position) {
                kept[position] = rest.inbound.count
                rest.inbound.append(inbound[position])
                rest.outcomes.append(outcomes[position])
                rest.requestIDs.append(requestIDs[position])
            }
            for (index, request) in requests.enumerated() where !removed.contains(positions[index]) {
                rest.requests.append(request)
                rest.positions.append(kept[positions[index]]!)
            }
            self = rest
            return singles
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
