import Configuration
import Synchronization

/// Keeps each key's latest per-provider lookup results, so a value can be traced to the source that set it.
final class SourceRecorder: AccessReporter, Sendable {
    private let latest = Mutex<[String: [AccessEvent.ProviderResult]]>([:])

    func report(_ event: AccessEvent) {
        let name = event.metadata.key.components.joined(separator: ".")
        latest.withLock { $0[name] = event.providerResults }
    }

    func results(for name: String) -> [AccessEvent.ProviderResult]? {
        latest.withLock { $0[name] }
    }
}
