import Foundation
import HearthCore

extension BrokerEngine {
    /// Closes Declared Age Range prompts past their deadline (as declined) and, under Always Share, reveals what an
    /// anniversary of a first declaration makes new, so an app's watchers learn it without asking.
    @discardableResult
    public func maintainAgeRanges() async throws -> Output {
        try await transacting(admitting: ownership.map { Set($0.served.keys) }) { tx in try tx.maintainAgeRanges() }.1
    }
}

extension BrokerPolicy {
    var agePromptTimeoutSeconds: TimeInterval {
        Double(agePromptTimeout.components.seconds) + Double(agePromptTimeout.components.attoseconds) / 1e18
    }
}
