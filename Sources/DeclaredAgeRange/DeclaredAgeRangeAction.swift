/// Apple's `DeclaredAgeRangeAction`, the type of SwiftUI's `@Environment(\.requestAgeRange)`: a value an app calls
/// as a function. Without SwiftUI, an app makes one over a service (`.shared` by default) and calls it the same way.
public struct DeclaredAgeRangeAction: Sendable {
    let service: AgeRangeService

    /// An action requesting through `service`.
    public init(service: AgeRangeService = .shared) {
        self.service = service
    }

    /// The user's range relative to 1 to 3 gates, as `AgeRangeService.requestAgeRange(ageGates:_:_:in:)` answers
    /// it; throws Apple's `AgeRangeService.Error`.
    public func callAsFunction(
        ageGates threshold1: Int, _ threshold2: Int? = nil, _ threshold3: Int? = nil
    ) async throws -> AgeRangeService.Response {
        try await service.requestAgeRange(ageGates: threshold1, threshold2, threshold3, in: nil)
    }
}
