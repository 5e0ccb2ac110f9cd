import Foundation
import HearthCore

/// What the broker says about the user beyond a range: the features their region's law requires of apps.
struct AgeSignals: Sendable, Hashable {
    var regulatoryFeatures: Set<AgeRangeService.RegulatoryFeature>
}

extension AgeRangeService {
    /// The user's signals, from the broker through the device daemon. Throws `Failure`.
    func signals() async throws -> AgeSignals {
        throw Failure.notAvailable(
            reason: .incompatibleDaemon(message: "this device daemon does not report regulatory features"))
    }

    /// Records the user's acknowledgment of a significant update of this app. Throws `Failure`.
    func acknowledgeSignificantUpdate(updateDescription: String) async throws {
        throw Failure.notAvailable(
            reason: .incompatibleDaemon(message: "this device daemon does not record acknowledgments"))
    }
}
