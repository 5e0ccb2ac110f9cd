import Foundation
import PermissionKit
import Synchronization

/// Collects an app's `updates` in the background so a test can wait for and count them.
final class ResponseCollector: Sendable {
    private let received = Box()
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    private final class Box: Sendable {
        let items = Mutex<[PermissionResponse<CommunicationTopic>]>([])
    }

    init(_ limits: CommunicationLimits) {
        let received = self.received
        let task = Task {
            for await response in limits.updates {
                received.items.withLock { $0.append(response) }
            }
        }
        self.task.withLock { $0 = task }
    }

    var responses: [PermissionResponse<CommunicationTopic>] { received.items.withLock { $0 } }

    func responses(for id: UUID) -> [PermissionResponse<CommunicationTopic>] { responses.filter { $0.question.id == id } }

    func cancel() { task.withLock { $0?.cancel() } }
}
