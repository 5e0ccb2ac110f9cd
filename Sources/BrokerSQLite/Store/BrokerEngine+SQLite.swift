public import BrokerCore
public import Foundation
public import Logging

extension BrokerEngine {
    /// An engine over the SQLite store.
    public convenience init(
        store: BrokerStore, directory: DirectoryBox, sequences: SequenceBook, logger: Logger,
        policy: BrokerPolicy = BrokerPolicy(),
        clock: @escaping @Sendable () -> Date = Date.init, deliver: @escaping @Sendable (Output) -> Void = { _ in }
    ) {
        self.init(
            storage: store, directory: directory, sequences: sequences, logger: logger, policy: policy, clock: clock,
            deliver: deliver)
    }
}
