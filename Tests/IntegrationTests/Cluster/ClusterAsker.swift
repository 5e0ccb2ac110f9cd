import Foundation
import HearthFleet
import PermissionKit

/// What the cluster tests drive: alice approving everything, the child's app asking from emma-tablet, and its
/// responses collected on both of emma's devices. `cancel()` (in a `defer`) stops the approver and the collectors
/// whatever happens; `close()` closes the apps at the end.
final class ClusterAsker {
    let tablet: CommunicationLimits
    let phone: CommunicationLimits
    let collectors: [AppResponses]
    private let approver: Task<Void, Never>
    /// Every question asked so far, in order.
    private(set) var asked: [UUID] = []

    init(_ fleet: Fleet) {
        approver = DeliveryUnderFaultsTests.autoApprove(fleet)
        tablet = fleet.app("com.example.chat", on: "emma-tablet", timeout: .seconds(10))
        phone = fleet.app("com.example.chat", on: "emma-phone", timeout: .seconds(10))
        collectors = [AppResponses(tablet), AppResponses(phone)]
    }

    /// Asks a question about `handle` from the tablet; returns its id.
    @discardableResult
    func ask(_ handle: String) async throws -> UUID {
        let question = DeliveryUnderFaultsTests.question(handle)
        try await tablet.ask(question)
        asked.append(question.id)
        return question.id
    }

    /// Every question asked was answered once by approval and delivered once to each of the child's devices.
    func expectEachAnsweredOnce(_ fleet: Fleet) async throws {
        try await BrokerClusterTests.expectEachAnsweredOnce(asked, collectors: collectors, fleet: fleet)
    }

    func cancel() {
        approver.cancel()
        for collector in collectors { collector.cancel() }
    }

    func close() async {
        await tablet.close()
        await phone.close()
    }
}
