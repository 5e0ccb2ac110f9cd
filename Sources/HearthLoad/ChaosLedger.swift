public import Foundation
public import HearthCore
import Synchronization

/// What the apps and parents of a chaos run did and saw, recorded as it happens: the questions asked (and on which
/// device), the answers the parents' devices accepted, and the faults.
public final class ChaosLedger: Sendable {
    public struct Asked: Sendable {
        public var device: DeviceID
        /// Whether the child's daemon took it (an ask is retried, with the same id, until it does).
        public var accepted: Bool
    }

    /// What the parents' devices replied to answers: an accepted answer's resolution, by question.
    public struct Answer: Sendable, Hashable {
        public var choice: String
        public var answeredBy: MemberID?
        public var resolvedAt: Date
    }

    private struct State {
        var asked: [UUID: Asked] = [:]
        var order: [UUID] = []
        var answers: [UUID: Set<Answer>] = [:]
        var refusedAnswers = 0
        var askRetries = 0
        var faults: [String] = []
        var kills: [ChaosFault.Kind: Int] = [:]
        var faultCounts: [ChaosFault: Int] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    func asking(_ id: UUID, on device: DeviceID) {
        state.withLock {
            $0.asked[id] = Asked(device: device, accepted: false)
            $0.order.append(id)
        }
    }

    func accepted(_ id: UUID) { state.withLock { $0.asked[id]?.accepted = true } }

    func askRetried() { state.withLock { $0.askRetries += 1 } }

    func answered(_ id: UUID, _ answer: Answer) { state.withLock { _ = $0.answers[id, default: []].insert(answer) } }

    func answerRefused() { state.withLock { $0.refusedAnswers += 1 } }

    func fault(_ fault: ChaosFault, kind: ChaosFault.Kind, target: String, at elapsed: Duration) {
        state.withLock {
            $0.faults.append(String(format: "%8.2f s  %@ %@", elapsed.seconds, fault.rawValue, target))
            $0.faultCounts[fault, default: 0] += 1
            if fault == .kill { $0.kills[kind, default: 0] += 1 }
        }
    }

    /// Questions in the order they were asked.
    public var questions: [(id: UUID, asked: Asked)] { state.withLock { s in s.order.map { ($0, s.asked[$0]!) } } }
    /// Accepted answers by question.
    public var answers: [UUID: Set<Answer>] { state.withLock { $0.answers } }
    public var refusedAnswers: Int { state.withLock { $0.refusedAnswers } }
    public var askRetries: Int { state.withLock { $0.askRetries } }
    /// Every fault, one line each: when, what, whom.
    public var faults: [String] { state.withLock { $0.faults } }
    public var kills: [ChaosFault.Kind: Int] { state.withLock { $0.kills } }
    public var faultCounts: [ChaosFault: Int] { state.withLock { $0.faultCounts } }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
