import Foundation
import HearthProtocol
import Testing

/// A passcode's hash may take seconds on a busy broker: the commands that carry one get a longer deadline, and a
/// local client always waits longer than its daemon so that the daemon's typed reply reaches it.
struct MessageDeadlineTests {
    @Test func passcodeCommandsWaitLongerThanOthers() {
        let id = UUID()
        #expect(Message.setPasscode(childID: "emma", passcode: "2468").brokerDeadline == .seconds(30))
        #expect(Message.approveInPerson(questionID: id, passcode: "2468").brokerDeadline == .seconds(30))
        #expect(
            Message.setPasscode(childID: "emma", passcode: "").brokerDeadline == .seconds(5), "clearing hashes none")
        #expect(Message.getLimits(childID: "emma").brokerDeadline == .seconds(5))
        #expect(Message.answer(questionID: id, choiceID: "approve", message: nil).brokerDeadline == .seconds(5))
    }

    @Test func aLocalClientOutwaitsItsDaemon() {
        for message in [Message.setPasscode(childID: "emma", passcode: "2468"), .listPending, .getLimits(childID: "e")]
        {
            #expect(message.localDeadline > message.brokerDeadline)
        }
    }
}
