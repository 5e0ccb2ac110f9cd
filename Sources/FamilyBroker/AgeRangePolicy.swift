import Foundation
import HearthCore

/// How the broker runs Declared Age Range: where the age of majority comes from and how long a prompt waits.
public struct AgeRangePolicy: Sendable {
    /// The age of majority per region (the largest meaningful gate, and who gets parental controls).
    public var regions: RegionRules
    /// How long an Ask First prompt waits for the user; then it counts as declined.
    public var promptTimeout: Duration

    public init(regions: RegionRules = .builtIn, promptTimeout: Duration = .seconds(60)) {
        self.regions = regions
        self.promptTimeout = promptTimeout
    }

    var promptTimeoutSeconds: TimeInterval {
        Double(promptTimeout.components.seconds) + Double(promptTimeout.components.attoseconds) / 1e18
    }
}
