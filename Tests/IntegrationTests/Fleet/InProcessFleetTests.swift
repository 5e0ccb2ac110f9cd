import Foundation
import HearthCore
import HearthFleet
import Testing

@testable import DeclaredAgeRange

/// The fleet's in-process mode builds each daemon with the daemon's own factory, so it runs what the executables run.
@Suite("In-process fleet", .serialized, .tags(.fleet))
struct InProcessFleetTests {
    @Test func anInProcessChildDeviceAnswersAnAgeRangeRequest() async throws {
        try await Fleet.with(AgeRangeAcrossDaemonsTests.family, mode: .inProcess) { fleet in
            let tablet = fleet.ageRange(AgeRangeAcrossDaemonsTests.app, on: "emma-tablet")
            let console = try await fleet.ageConsole(on: "emma-tablet")
            // Ask First: the request waits for emma's answer on her device, which the child daemon serves too.
            let request = Task { try await tablet.requestAgeRange(ageGates: 13, 16) }
            let prompt = try await console.waitForPrompt(app: AgeRangeAcrossDaemonsTests.app)
            try await console.answer(prompt.id, share: true)
            #expect(try await request.value == .sharing(range: AgeRangeAcrossDaemonsTests.emmaUnder13and16))
            await console.close()
            await tablet.close()
        }
    }
}
