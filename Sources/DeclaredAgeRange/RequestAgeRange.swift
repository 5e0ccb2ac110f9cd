/// Apple's `@Environment(\.requestAgeRange)` action, for code without a view: `AgeRangeService.shared`'s request.
/// With it, the session code's `try await requestAgeRange(ageGates: 16)` compiles unchanged; it throws Apple's
/// `AgeRangeService.Error`.
public func requestAgeRange(
    ageGates threshold1: Int, _ threshold2: Int? = nil, _ threshold3: Int? = nil
) async throws -> AgeRangeService.Response {
    try await AgeRangeService.shared.requestAgeRange(ageGates: threshold1, threshold2, threshold3, in: nil)
}
