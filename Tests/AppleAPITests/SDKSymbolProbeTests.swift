import DeclaredAgeRange
import Foundation
import PermissionKit
import Testing

/// `SDKSymbolProbe.swift` compiles (the check that matters); what runs without daemons runs here too.
@Suite("Apple's SDK symbols, as documented")
struct SDKSymbolProbeTests {
    @Test func questionsAndTopicsAreBuiltAndMirroredWithApplesSpellings() throws {
        let fields = try SDKSymbolProbe.questions()
        #expect(fields.contains("communication") && fields.contains("significantAppUpdate"))
        #expect(fields.contains("Adds video calls and a public feed."))
        #expect(SDKSymbolProbe.topicID(SignificantAppUpdateTopic.self) == SignificantAppUpdateTopic.id)
    }

    /// iOS 27's `declinedOnboarding` is in the enum for an exhaustive switch; `DeclaredAgeRangeAction` (SwiftUI's
    /// `requestAgeRange` environment value) throws Apple's errors like the service it wraps.
    @Test func declaredAgeRangeActionAndTheTwentySevenErrors() async {
        #expect(SDKSymbolProbe.ageError(.declinedOnboarding) == "age range sharing was not set up")
        #expect(SDKSymbolProbe.declaration(nil) == "none")
        let missing = FileManager.default.temporaryDirectory.path + "/no-daemon-\(UUID().uuidString).sock"
        let request = DeclaredAgeRangeAction(service: AgeRangeService(socketPath: missing, bundleID: "com.example.a"))
        do {
            _ = try await request(ageGates: 13)
            Issue.record("a range without a daemon")
        } catch {
            #expect(error as? AgeRangeService.Error == .notAvailable)
        }
    }
}
