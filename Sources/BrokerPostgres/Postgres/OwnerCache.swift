#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import Synchronization

/// What a partition's owner knows of its families' rows without asking PostgreSQL: questions (by id), each child's
/// whole set of approved handles, and what its asks read of it (`CachedChild`), as committed. A partition has one owner at a time, fenced by its epoch
/// (docs/decisions/0011-fenced-leases.md), and every command runs only once its partition's lease was checked and
/// locked in its own transaction, so nothing but this broker's own commits changes these rows while it serves them.
/// docs/decisions/0022-owner-cache.md.
///
/// Off until the broker adopts partitions (`reset`, in the adoption's transaction on the writer): a broker outside a
/// cluster has no lease to vouch that it is the only writer. Forgotten whole at every adoption (another broker may
/// have written while it held the partition), when a lease is lost, and when a commit is in doubt. A transaction's
/// changes are staged (`OwnerCache.Change`) and applied only once it committed.
final class OwnerCache: Sendable {
    /// How many questions a generation holds before it becomes the old one (two are kept): the newest are the ones
    /// answered, and a question missing here is read from the server as before.
    static let questionsPerGeneration = 16_384

    /// A change a transaction makes, applied once it commits.
    enum Change: Sendable {
        /// A question as stored now (inserted, resolved, or read from the server).
        case question(Stored.Question)
        /// The child's whole set of approved handles now.
        case handles(MemberID, Set<CommunicationHandle>)
        /// The child's rows that its asks read, whole, now.
        case child(MemberID, CachedChild)
        /// A change to some child's rows that the transaction could not place: every `CachedChild` is read again.
        case forgetChildren
    }

    private struct State {
        var enabled = false
        var questions: [UUID: Stored.Question] = [:]
        var olderQuestions: [UUID: Stored.Question] = [:]
        var handles: [MemberID: Set<CommunicationHandle>] = [:]
        var children: [MemberID: CachedChild] = [:]
        /// Bumped by every `forget`: a transaction that began before one applies none of what it read.
        var generation = 0
        /// The server the cache was filled from (`PostgresSession.incarnation`).
        var incarnation: String?

        mutating func forget() {
            questions.removeAll()
            olderQuestions.removeAll()
            handles.removeAll()
            children.removeAll()
            generation += 1
        }
    }

    private let state = Mutex(State())

    /// Whether the cache is in use (a broker of a cluster, once it adopted partitions).
    var isEnabled: Bool { state.withLock { $0.enabled } }

    /// The generation now: changes staged from then on apply at commit only if it is still the same.
    var generation: Int { state.withLock { $0.generation } }

    /// Forgets everything and turns the cache on: partitions were just adopted.
    func reset() {
        state.withLock { state in
            state.forget()
            state.enabled = true
        }
    }

    /// Forgets everything (a lease lost, a commit in doubt); stays on.
    func forget() {
        state.withLock { $0.forget() }
    }

    /// Before a transaction on the writer's connection: forgets everything when the server is not the one the cache
    /// was filled from (a promoted standby may lack commits the old primary acknowledged), or cannot be told.
    func check(incarnation: String?) {
        state.withLock { state in
            guard incarnation == nil || incarnation != state.incarnation else { return }
            state.forget()
            state.incarnation = incarnation
        }
    }

    func question(_ id: UUID) -> Stored.Question? {
        state.withLock { state in
            guard state.enabled else { return nil }
            return state.questions[id] ?? state.olderQuestions[id]
        }
    }

    /// The child's approved handles, when known whole.
    func handles(of child: MemberID) -> Set<CommunicationHandle>? {
        state.withLock { $0.enabled ? $0.handles[child] : nil }
    }

    /// The child's rows its asks read, when known.
    func child(_ child: MemberID) -> CachedChild? {
        state.withLock { $0.enabled ? $0.children[child] : nil }
    }

    /// Applies a committed transaction's changes, unless the cache was forgotten since the transaction began
    /// (`generation`): what it read may be of a partition no longer served.
    func apply(_ changes: [Change], since generation: Int) {
        guard !changes.isEmpty else { return }
        state.withLock { state in
            guard state.enabled, state.generation == generation else { return }
            for change in changes {
                switch change {
                case .question(let question):
                    state.questions[question.asked.question.id] = question
                    if state.questions.count >= Self.questionsPerGeneration {
                        state.olderQuestions = state.questions
                        state.questions.removeAll(keepingCapacity: true)
                    }
                case .handles(let child, let set):
                    state.handles[child] = set
                case .child(let child, let rows):
                    state.children[child] = rows
                case .forgetChildren:
                    state.children.removeAll()
                }
            }
        }
    }
}
#endif
