import DeclaredAgeRange
import Testing

// The code of WWDC25 "Deliver age-appropriate experiences in your app" (8:03 and 11:49), with only the UI lines
// removed: `import SwiftUI`, `: View`, `@Environment(\.requestAgeRange) var requestAgeRange` (the module's
// `requestAgeRange(ageGates:_:_:)` stands in for the environment action), `body` with its `ScrollView`, `Button` and
// `.task`, and `@State` (a main-actor class holds the flag instead of a view). This file imports nothing but
// DeclaredAgeRange, as an app would. Running it needs the machine's device daemon, so it is compiled, not run;
// IntegrationTests run the same calls against real daemons.

/// 8:03 - Request an age range.
@MainActor
final class LandmarkDetail {
    // ...
    var photoSharingEnabled = false

    func requestAgeRangeHelper() async {
        do {
            // TODO: Check user region
            let ageRangeResponse = try await requestAgeRange(ageGates: 16)
            switch ageRangeResponse {
            case .sharing(let range):
                // Age range shared
                if let lowerBound = range.lowerBound, lowerBound >= 16 {
                    photoSharingEnabled = true
                }
                // guardianDeclared, selfDeclared
                print(range.ageRangeDeclaration as Any)
            case .declinedSharing:
                // Declined to share
                print("Declined to share")
            }
        } catch AgeRangeService.Error.invalidRequest {
            print("Handle invalid request error")
        } catch AgeRangeService.Error.notAvailable {
            print("Handle not available error")
        } catch {
            print("Unhandled error: \(error)")
        }
    }
}

/// 11:49 - Communication Limits.
func requestAgeRangeHelper() async {
    do {
        // TODO: Check user region
        let ageRangeResponse = try await requestAgeRange(ageGates: 16)
        switch ageRangeResponse {
        case .sharing(let range):
            if range.activeParentalControls.contains(.communicationLimits) {
                print("Communication Limits enabled")
            }
        // ...
        case .declinedSharing:
            // Declined to share
            print("Declined to share")
        }
    } catch {
        // ...
    }
}

@Suite struct AppleSessionCodeTests {
    @Test func sessionFunctionsExist() {
        // Referenced so they are type-checked as values too; running them needs a real daemon.
        let functions: [Any] = [LandmarkDetail.requestAgeRangeHelper, requestAgeRangeHelper]
        #expect(functions.count == 2)
    }

    @Test func theSessionsCatchPatternsMatchOurErrorsWhateverTheirReason() {
        func handled(_ error: any Error) -> String {
            do {
                throw error
            } catch AgeRangeService.Error.invalidRequest {
                return "invalid"
            } catch AgeRangeService.Error.notAvailable {
                return "notAvailable"
            } catch {
                return "unhandled"
            }
        }
        #expect(handled(AgeRangeService.Error.invalidRequest) == "invalid")
        #expect(handled(AgeRangeService.Error.notAvailable) == "notAvailable")
        #expect(handled(CancellationError()) == "unhandled")
    }
}
