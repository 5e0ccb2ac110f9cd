import Foundation
import Testing

@testable import HearthLab

/// The ports tests give their servers: never one an outgoing connection could take first.
@Suite struct LoopbackPortTests {
    @Test func portsComeFromBelowTheEphemeralRangeAndAreNeverHandedOutTwice() throws {
        let range = LoopbackPort.belowEphemeralRange()
        try #require(!range.isEmpty, "this machine's ephemeral range starts below 11,000")
        let ports = try (0..<200).map { _ in try LoopbackPort.free() }
        #expect(ports.allSatisfy(range.contains), "\(ports.filter { !range.contains($0) })")
        #expect(Set(ports).count == ports.count)
    }
}
