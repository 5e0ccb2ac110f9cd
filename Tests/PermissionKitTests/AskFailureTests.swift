import Foundation
import HearthProtocol
import HearthTransport
import Testing

@testable import PermissionKit

@Suite struct AskFailureTests {
    @Test(arguments: ErrorCode.allCases)
    func everyErrorCodeMapsToACaseCarryingTheMessage(code: ErrorCode) {
        let error = AskFailure(ErrorReply(code, "detail-\(code.rawValue)"))
        let expected: AskFailure =
            switch code {
            case .invalidQuestion, .invalidChoice, .expired, .alreadyAnswered, .questionTooLarge, .withdrawn:
                .invalidQuestion(reason: "detail-\(code.rawValue)")
            case .notAvailable: .notAvailable(reason: .notAChild(message: "detail-10"))
            case .notAuthorized: .notAvailable(reason: .notAuthorized(message: "detail-4"))
            case .helloRequired: .notAvailable(reason: .helloRefused(message: "detail-13"))
            case .brokerUnavailable: .notAvailable(reason: .brokerUnavailable(message: "detail-14"))
            case .rateLimited: .notAvailable(reason: .rateLimited(message: "detail-9"))
            case .unsupportedVersion, .unknownMessageType:
                .notAvailable(reason: .incompatibleDaemon(message: "detail-\(code.rawValue)"))
            case .malformedMessage, .notFound, .internalError, .unknown, .invalidRequest, .lockedOut, .wrongPasscode,
                .invalidAgeRequest, .ageNotDeclared, .invalidCursor:
                .unknown(reason: ErrorReply(code, "detail-\(code.rawValue)").description)
            case .deviceNotEnrolled: .notAvailable(reason: .notAuthorized(message: "detail-22"))
            case .invalidText: .invalidText(field: "question.note", reason: "detail-24")
            case .misleadingChoice: .misleadingChoice(field: "question.choices", reason: "detail-27")
            }
        #expect(error == expected)
        #expect(error.description.contains("detail-\(code.rawValue)"))
    }

    @Test func anInvalidTextReplyNamesItsField() {
        let error = AskFailure(ErrorReply(.invalidText, "question.note: is 281 characters, at most 280 allowed"))
        #expect(error == .invalidText(field: "question.note", reason: "is 281 characters, at most 280 allowed"))
        #expect(error.description == "invalid question: question.note is 281 characters, at most 280 allowed")
    }

    @Test func transportErrorsNameTheSocket() throws {
        let missing = "/tmp/pk-none-\(UUID().uuidString.prefix(8))/child-device.sock"
        let timeout = AskFailure(TransportError.timeout(peer: "child-device", seconds: 0.5), socketPath: missing)
        #expect(timeout == .notAvailable(reason: .daemonNotRunning(socketPath: missing)))
        #expect(timeout.description.contains(missing))
        #expect(timeout.localizedDescription.contains(missing))

        // A file exists, so a daemon may be there but hung: a timeout, with the deadline.
        let present = NSTemporaryDirectory() + "pk-present-\(UUID().uuidString.prefix(8))"
        #expect(FileManager.default.createFile(atPath: present, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: present) }
        let hung = AskFailure(TransportError.timeout(peer: "child-device", seconds: 0.5), socketPath: present)
        #expect(hung == .notAvailable(reason: .timedOut(socketPath: present, seconds: 0.5)))
        #expect(hung.description.contains(present) && hung.description.contains("0.5"))

        #expect(
            AskFailure(TransportError.closed(peer: "x"), socketPath: present)
                == .notAvailable(reason: .connectionClosed(socketPath: present)))
        guard
            case .unknown(let reason) = AskFailure(
                TransportError.unexpectedReply(peer: "x", type: 0xA3), socketPath: present)
        else {
            Issue.record("unexpected reply should be unknown")
            return
        }
        #expect(reason.contains("0xa3"))
        let passthrough = AskFailure.invalidQuestion(reason: "r")
        #expect(AskFailure(passthrough, socketPath: present) == passthrough)
    }

    @Test func applesCasesStillMatchWithoutBindings() {
        let error: any Error = AskFailure.notAvailable(reason: .notAChild(message: "adult"))
        switch error {
        case AskFailure.notAvailable: break
        default: Issue.record("a bare `AskFailure.notAvailable` pattern must match")
        }
    }
}
