import Foundation

// Apple's spellings of the SDK (iOS 26.0–27.0) that have no sheet to show on Linux: the UI anchor (`in:`, a view
// controller, a window or a window scene on Apple platforms) is accepted and ignored, as PermissionKit does, and
// every one throws Apple's `AgeRangeService.Error`; Hearth's headless spellings throw `Failure`, with the detail.
extension AgeRangeService {
    /// Apple's `requestAgeRange(ageGates:_:_:in:)`: Hearth's `requestAgeRange(ageGates:_:_:)`, throwing Apple's
    /// `Error` (`invalidRequest`, `notAvailable`, `invalidAccount`, `network`). `context` is ignored.
    nonisolated(nonsending)
        public func requestAgeRange(
            ageGates threshold1: Int, _ threshold2: Int? = nil, _ threshold3: Int? = nil, in context: Any?
        ) async throws -> Response
    {
        do {
            return try await requestAgeRange(ageGates: threshold1, threshold2, threshold3)
        } catch let failure as Failure {
            throw Error(failure)
        }
    }

    /// The features the law of the user's region requires of apps (iOS 26.4), from the broker's region rules for the
    /// user's region and age (docs/AGE-RANGE.md, "Regulatory features"). Throws `Error.notAvailable` when the daemon
    /// cannot say (none, or it or its broker predates them), `network` when the broker is unreachable,
    /// `invalidAccount` when the device is not enrolled.
    public var requiredRegulatoryFeatures: Set<RegulatoryFeature> {
        get async throws { try await applesSignals().regulatoryFeatures }
    }

    /// Whether age-gated features apply to the user (iOS 26.2): true when the user's region requires any regulatory
    /// feature, so the app must support Age Assurance for them. Throws as `requiredRegulatoryFeatures` does.
    public var isEligibleForAgeFeatures: Bool {
        get async throws { try await !applesSignals().regulatoryFeatures.isEmpty }
    }

    /// `signals()`, throwing Apple's `Error`.
    private func applesSignals() async throws -> AgeSignals {
        do {
            return try await signals()
        } catch let failure as Failure {
            throw Error(failure)
        }
    }

    /// Apple's `showSignificantUpdateAcknowledgment(in:updateDescription:)` (iOS 26.4): tells the user about a
    /// significant change of the app, which they acknowledge. Hearth has no sheet: the acknowledgment is recorded in
    /// the family's history (a child's, with who, the app, the description and the time), for the member's parents
    /// to read. `context` is ignored. Throws `Error.invalidRequest` for a description breaking the text rule (empty,
    /// over 500 characters, a control or bidirectional character), `notAvailable` past 10 an hour for this app or
    /// from a daemon or broker that predates acknowledgments, as `requiredRegulatoryFeatures` does otherwise.
    nonisolated(nonsending)
        public func showSignificantUpdateAcknowledgment(in context: Any?, updateDescription: String) async throws
    {
        do {
            try await acknowledgeSignificantUpdate(updateDescription: updateDescription)
        } catch let failure as Failure {
            throw Error(failure)
        }
    }
}
