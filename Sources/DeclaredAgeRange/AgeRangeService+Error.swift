public import Foundation

extension AgeRangeService {
    /// Why an age range request failed, in Apple's shape: the cases carry no detail. Hearth's headless
    /// `requestAgeRange(ageGates:_:_:)` throws `Failure` instead, which names the rule or the unreachable daemon.
    public enum Error: Swift.Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
        /// The request breaks a rule: 1 to 3 ascending gates, each range at least 2 years wide.
        case invalidRequest
        /// The system cannot answer: no device daemon, or one that timed out, refused or speaks another protocol.
        case notAvailable
        /// The device's account cannot share an age: its member has no birth date, or the device is not enrolled.
        case invalidAccount
        /// The device daemon could not reach the family broker; retry later.
        case network
        /// Apple's (27.0): the user dismissed the system's onboarding that sets up age range sharing. Hearth has no
        /// such sheet (a member's age is set up in the family file), so it never throws this case; it exists so that
        /// an app's exhaustive `switch` written for iOS 27 compiles.
        case declinedOnboarding

        /// The case Apple's spellings throw for `failure`.
        public init(_ failure: Failure) {
            switch failure {
            case .invalidRequest: self = .invalidRequest
            case .notAvailable(let reason):
                switch reason.code {
                case .noAccount, .deviceNotEnrolled: self = .invalidAccount
                case .brokerUnreachable: self = .network
                default: self = .notAvailable
                }
            }
        }

        public var description: String {
            switch self {
            case .invalidRequest: "invalid age range request; Hearth's requestAgeRange(ageGates:) names the rule"
            case .notAvailable: "Declared Age Range is not available on this device now"
            case .invalidAccount: "this device's account cannot share an age range"
            case .network: "the family broker could not be reached; retry later"
            case .declinedOnboarding: "age range sharing was not set up"
            }
        }

        public var errorDescription: String? { description }
    }
}

extension AgeRangeService.Failure {
    /// The case of Apple's `AgeRangeService.Error` this failure becomes in Apple's spellings.
    public var error: AgeRangeService.Error { AgeRangeService.Error(self) }
}
