public import Foundation
public import PermissionKit
import Synchronization

/// Collects an app's `updates` in the background, so a test can wait for and count the responses it got.
public final class AppResponses: Sendable {
    private final class Box: Sendable {
        let items = Mutex<[PermissionResponse<CommunicationTopic>]>([])
    }

    private let received = Box()
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Starts listening to `limits.updates` at once.
    public init(_ limits: CommunicationLimits) {
        let task = Task { [received] in
            for await response in limits.responses(for: CommunicationTopic.self) {
                received.items.withLock { $0.append(response) }
            }
        }
        self.task.withLock { $0 = task }
    }

    /// Every response so far, in arrival order.
    public var responses: [PermissionResponse<CommunicationTopic>] { received.items.withLock { $0 } }

    /// The responses to one question (more than one would be a duplicate delivery).
    public func responses(for id: UUID) -> [PermissionResponse<CommunicationTopic>] {
        responses.filter { $0.question.id == id }
    }

    /// Stops listening.
    public func cancel() { task.withLock { $0?.cancel() } }
}
