import Foundation
import HearthFleet
import PermissionKit
import Synchronization

/// Questions flowing without a pause while the database fails over: the child's app on emma-tablet asks one every
/// `interval` (each waits for the previous ask to return, as an app would), alice's phone approves whatever is
/// pending, and both of emma's devices collect the responses. Each ask is recorded with when it was sent and when
/// the child-device daemon accepted it (`askAccepted`), or why it failed.
final class FailoverStream: Sendable {
    struct Ask: Sendable {
        let id: UUID
        let sentAt: ContinuousClock.Instant
        var acceptedAt: ContinuousClock.Instant?
        var failure: String?
    }

    let tablet: CommunicationLimits
    let phone: CommunicationLimits
    let collectors: [AppResponses]
    private let approver: Task<Void, Never>
    private let asker = Mutex<Task<Void, Never>?>(nil)
    private let recorded = Recorded()

    private final class Recorded: Sendable {
        let asks = Mutex<[Ask]>([])
    }

    init(_ fleet: Fleet, interval: Duration = .milliseconds(100)) {
        approver = DeliveryUnderFaultsTests.autoApprove(fleet)
        tablet = fleet.app("com.example.chat", on: "emma-tablet", timeout: .seconds(10))
        phone = fleet.app("com.example.chat", on: "emma-phone", timeout: .seconds(10))
        collectors = [AppResponses(tablet), AppResponses(phone)]
        let task = Task { [tablet, recorded] in
            var index = 0
            while !Task.isCancelled {
                let question = DeliveryUnderFaultsTests.question("failover-\(index)")
                index += 1
                let slot = recorded.asks.withLock { asks in
                    asks.append(Ask(id: question.id, sentAt: .now))
                    return asks.count - 1
                }
                do {
                    try await tablet.ask(question)
                    recorded.asks.withLock { $0[slot].acceptedAt = .now }
                } catch {
                    recorded.asks.withLock { $0[slot].failure = "\(error)" }
                }
                try? await Task.sleep(for: interval)
            }
        }
        asker.withLock { $0 = task }
    }

    /// Every ask so far, in order.
    var asks: [Ask] { recorded.asks.withLock { $0 } }

    /// The responses to `id` delivered to each of the child's devices.
    func deliveries(of id: UUID) -> [Int] { collectors.map { $0.responses(for: id).count } }

    /// Whether every device of the child has a response to `id`.
    func isAnswered(_ id: UUID) -> Bool { deliveries(of: id).allSatisfy { $0 > 0 } }

    /// Stops asking and waits for the ask in flight to return.
    func stopAsking() async {
        let task = asker.withLock { $0 }
        task?.cancel()
        await task?.value
    }

    /// Stops everything (in a `defer`, whatever happens).
    func cancel() {
        asker.withLock { $0?.cancel() }
        approver.cancel()
        for collector in collectors { collector.cancel() }
    }

    func close() async {
        await tablet.close()
        await phone.close()
    }
}
