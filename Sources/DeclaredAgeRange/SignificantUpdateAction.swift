/// Apple's SwiftUI `showSignificantUpdateAcknowledgment` action (`@Environment(\.showSignificantUpdateAcknowledgment)`),
/// for code without a view: it acknowledges through `AgeRangeService.shared`.
public struct SignificantUpdateAction: Sendable {
    let service: AgeRangeService

    /// An action acknowledging through `service`.
    public init(service: AgeRangeService = .shared) {
        self.service = service
    }

    /// Records the user's acknowledgment of `updateDescription`; see
    /// `AgeRangeService.showSignificantUpdateAcknowledgment(in:updateDescription:)`.
    public func callAsFunction(updateDescription: String) async throws {
        try await service.showSignificantUpdateAcknowledgment(in: nil, updateDescription: updateDescription)
    }
}

/// The environment value's stand-in: `try await showSignificantUpdateAcknowledgment(updateDescription: "…")`
/// compiles as it does in a SwiftUI view.
public let showSignificantUpdateAcknowledgment = SignificantUpdateAction()
