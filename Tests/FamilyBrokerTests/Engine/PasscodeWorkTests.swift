import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// scrypt runs only for commands the transaction would act on, so no caller can make the broker hash for nothing.
@Suite struct PasscodeWorkTests {
    func prepared(_ commands: [(DeviceID?, Message)], _ broker: BrokerHarness) async -> [Int: PasscodeWork.Prepared] {
        // A device that is not enrolled never gets past the intake; here it stands for a caller with no member.
        let batch = commands.map { device, message in
            BrokerRequest(
                deviceID: device ?? "-", memberID: device.flatMap { broker.directory.member(ofDevice: $0)?.id } ?? "-",
                command: try! BrokerFrames.command(message))
        }
        return await PasscodeWork.prepare(
            batch, store: broker.storage, policy: BrokerHarness.policy, directory: broker.directory,
            now: broker.clock.now)
    }

    @Test(arguments: StorageBackend.all)
    func setPasscodeIsHashedOnlyForAParentOfTheChildsFamily(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let work = await prepared(
                [
                    ("a1", .setPasscode(childID: "emma", passcode: "1234")),
                    ("b1", .setPasscode(childID: "tim", passcode: "1234")),
                    ("c1", .setPasscode(childID: "emma", passcode: "1234")),
                    ("e1", .setPasscode(childID: "emma", passcode: "1234")),
                    ("z1", .setPasscode(childID: "emma", passcode: "1234")),
                    ("a1", .setPasscode(childID: "yuri", passcode: "1234")),
                    ("a1", .setPasscode(childID: "carol", passcode: "1234")),
                    ("a1", .setPasscode(childID: "nobody", passcode: "1234")),
                    ("a1", .setPasscode(childID: "emma", passcode: "123")),
                    ("a1", .setPasscode(childID: "emma", passcode: "")),
                    (nil, .setPasscode(childID: "emma", passcode: "1234")),
                    ("unknown-device", .setPasscode(childID: "emma", passcode: "1234")),
                ], broker)
            #expect(work.keys.sorted() == [0, 1], "the organizer and the guardian, for children of their family")
            guard case .newHash(let hash)? = work[0] else {
                Issue.record("no hash for the organizer")
                return
            }
            #expect(hash.verify("1234"))
        }
    }

    @Test(arguments: StorageBackend.all)
    func approveInPersonIsCheckedOnlyForTheAskingChildWhileNotLockedOut(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let question = Question(
                topic: .communication(
                    CommunicationTopic(personInformation: [
                        PersonInformation(handle: CommunicationHandle(value: "pal", kind: .custom))
                    ])))
            _ = try await broker.ask(question)
            #expect(try await broker.send(.setPasscode(childID: "emma", passcode: "2468"), from: "alice").reply == .ok)
            let work = await prepared(
                [
                    ("e1", .approveInPerson(questionID: question.id, passcode: "2468")),
                    ("e1", .approveInPerson(questionID: question.id, passcode: "1111")),
                    ("a1", .approveInPerson(questionID: question.id, passcode: "2468")),
                    ("y1", .approveInPerson(questionID: question.id, passcode: "2468")),
                    ("e1", .approveInPerson(questionID: UUID(), passcode: "2468")),
                ], broker)
            #expect(work.keys.sorted() == [0, 1])
            guard case .checked(_, true)? = work[0], case .checked(_, false)? = work[1] else {
                Issue.record("the child's attempts were not checked: \(work)")
                return
            }
            // Locked out after the allowed wrong attempts: nothing more is hashed until the lockout ends.
            for _ in 0..<BrokerHarness.policy.passcodeAttempts {
                _ = try await broker.send(.approveInPerson(questionID: question.id, passcode: "0000"), from: "emma")
            }
            #expect(
                await prepared([("e1", .approveInPerson(questionID: question.id, passcode: "2468"))], broker).isEmpty)
            broker.clock.advance(by: Double(BrokerHarness.policy.passcodeLockoutSeconds) + 1)
            #expect(
                await prepared([("e1", .approveInPerson(questionID: question.id, passcode: "2468"))], broker).count == 1
            )
        }
    }
}
