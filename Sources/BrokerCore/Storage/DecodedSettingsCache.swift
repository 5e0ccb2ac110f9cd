package import Foundation
package import HearthCore
import Synchronization

/// Decoded `CommunicationSettings` by their stored bytes. Every ask reads its child's settings, and decoding the JSON
/// was 5% of the broker's CPU under load; the row is still read each time, so the database stays the only truth and
/// the cache needs no invalidation: changed settings are different bytes.
package final class DecodedSettingsCache: Sendable {
    /// Shared by every store in the process: entries are keyed by content, so stores cannot see each other's data.
    package static let shared = DecodedSettingsCache(capacity: 4096)

    private let capacity: Int
    private let entries = Mutex<[Data: CommunicationSettings]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The settings `data` decodes to, decoded once per distinct content.
    package func settings(from data: Data) throws -> CommunicationSettings {
        if let cached = entries.withLock({ $0[data] }) { return cached }
        let decoded = try JSONDecoder().decode(CommunicationSettings.self, from: data)
        entries.withLock { entries in
            // Settings differ per child only when parents changed them; past the capacity start again rather than
            // track recency, which keeps the common case a single dictionary lookup.
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[data] = decoded
        }
        return decoded
    }
}
