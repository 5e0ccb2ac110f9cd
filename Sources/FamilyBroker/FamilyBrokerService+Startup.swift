import Foundation
import Logging

extension FamilyBrokerService {
    /// The directory the broker starts with, the stored one with the family file applied, and what applying it
    /// produced. Throws, storing nothing, as applying the file to the stored directory does.
    ///
    /// When every stored row is the file's entry as last applied, byte for byte, applying the file changes nothing and
    /// the stored directory is the file's: the file's directory is kept and the stored one is never built (a restart
    /// held both at once: a 538 MiB peak with 100,000 families, 294 MiB with one). Otherwise the stored directory is
    /// built and the file merged into it, as on a first start or after an admin edit.
    static func startupDirectory(
        _ store: BrokerStore, sequences: SequenceBook, policy: BrokerPolicy, logger: Logger, clock: @escaping @Sendable () -> Date,
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
        if try await store.read({ db in try BrokerStore.holdsExactly(configured.file, in: db) }) {
            return (DirectoryBox(Directory(storedFormOf: configured, rules: policy.regions)), BrokerEngine.Output())
        }
        let directory = DirectoryBox(try await storedDirectory(store, policy: policy))
        let applied = try await BrokerEngine(store: store, directory: directory, sequences: sequences, logger: logger, policy: policy, clock: clock)
            .applyConfiguration(configured)
        return (directory, applied)
    }
}
