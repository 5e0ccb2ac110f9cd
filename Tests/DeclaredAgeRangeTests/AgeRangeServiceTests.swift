import Foundation
import HearthProtocol
import HearthTransport
import Testing

@testable import DeclaredAgeRange

/// The library without a daemon: local rule checks, missing daemon, and how daemon errors map to typed errors.
@Suite struct AgeRangeServiceTests {
    private let missing = "/tmp/dar-none-\(UUID().uuidString.prefix(8))/device.sock"

    @Test(
        arguments: [
            ([16, 13], "ascending"),
            ([13, 14], "at least 2 years"),
            ([0], "outside 2...99"),
            ([1], "outside 2...99"),
        ] as [([Int], String)])
    func invalidGatesAreRefusedBeforeAnyConnection(gates: [Int], rule: String) async {
        let service = AgeRangeService(socketPath: missing, bundleID: "com.example.app")
        do {
            _ = try await service.requestAgeRange(ageGates: gates[0], gates.count > 1 ? gates[1] : nil)
            Issue.record("no error")
        } catch let AgeRangeService.Failure.invalidRequest(reason) {
            #expect(reason.contains(rule), "\(reason)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aMissingDaemonIsNamed() async {
        let service = AgeRangeService(socketPath: missing, bundleID: "com.example.app")
        await #expect(throws: AgeRangeService.Failure.notAvailable(reason: .daemonNotRunning(socketPath: missing))) {
            try await service.requestAgeRange(ageGates: 13, 16)
        }
    }

    @Test func errorRepliesMapToDistinctReasons() {
        #expect(AgeRangeService.Failure(ErrorReply(.invalidAgeRequest, "rule")) == .invalidRequest(reason: "rule"))
        #expect(
            AgeRangeService.Failure(ErrorReply(.ageNotDeclared, "m")) == .notAvailable(reason: .noAccount(message: "m"))
        )
        #expect(
            AgeRangeService.Failure(ErrorReply(.deviceNotEnrolled, "m"))
                == .notAvailable(reason: .deviceNotEnrolled(message: "m")))
        #expect(
            AgeRangeService.Failure(ErrorReply(.brokerUnavailable, "m"))
                == .notAvailable(reason: .brokerUnreachable(message: "m")))
        #expect(
            AgeRangeService.Failure(ErrorReply(.unknownMessageType, "m"))
                == .notAvailable(reason: .incompatibleDaemon(message: "m")))
        let present = NSTemporaryDirectory() + "dar-present-\(UUID().uuidString.prefix(8))"
        #expect(FileManager.default.createFile(atPath: present, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: present) }
        #expect(
            AgeRangeService.Failure(TransportError.timeout(peer: "d", seconds: 0.5), socketPath: present)
                == .notAvailable(reason: .timedOut(socketPath: present, seconds: 0.5)))
        #expect(
            AgeRangeService.Failure(TransportError.timeout(peer: "d", seconds: 0.5), socketPath: missing)
                == .notAvailable(reason: .daemonNotRunning(socketPath: missing)))
        #expect(
            AgeRangeService.Failure(TransportError.closed(peer: "d"), socketPath: present)
                == .notAvailable(reason: .connectionClosed(socketPath: present)))
        let reasons: [AgeRangeService.Failure.NotAvailableReason] = [
            .noAccount(message: "m"), .deviceNotEnrolled(message: "m"), .brokerUnreachable(message: "m"),
            .daemonNotRunning(socketPath: "p"),
            .timedOut(socketPath: "p", seconds: 1), .connectionClosed(socketPath: "p"),
            .incompatibleDaemon(message: "m"), .refused(message: "m"),
        ]
        #expect(Set(reasons.map(\.description)).count == reasons.count, "each reason reads differently")
    }

    @Test func anAbstractSocketAlwaysCountsAsPresent() {
        #expect(LocalEndpoints.socketExists("@abstract"))
        #expect(!LocalEndpoints.socketExists(missing))
    }
}
