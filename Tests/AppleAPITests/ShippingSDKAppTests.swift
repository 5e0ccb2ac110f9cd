import DeclaredAgeRange
import Foundation
import HearthClient
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// `ShippingSDKApp.swift`, an app written against Apple's shipping SDK, run against the three daemons as real
/// processes: its questions reach a parent, its significant change is approved remotely and in person, its age
/// requests get ranges, and Apple's errors come where Apple documents them.
@Suite("An app written for Apple's shipping SDK, against real daemons", .serialized, .tags(.fleet))
struct ShippingSDKAppTests {
    static let bundleID = "com.example.chat"
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .init("alice", role: .organizer, birthDate: "1985-01-01", devices: ["alice-phone"]),
                .init("carol", role: .adult, birthDate: "1960-01-01", devices: ["carol-laptop"]),
                .init("emma", role: .child, birthDate: "2014-01-01", devices: ["emma-tablet"]),
                .init("noa", role: .child, birthDate: "", devices: ["noa-tablet"]),
            ])
    ])

    @Test func askCenterQuestionsAndSignificantChangesReachTheParentsAndTheirAnswersComeBack() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = ChatApp(center: AskCenter(fleet.app(Self.bundleID, on: "emma-tablet")))
            let alice = try await fleet.parent(on: "alice-phone")
            #expect(ChatApp.topicIDs == ["communication", "significantAppUpdate"])

            let chatAnswer = Task { await app.nextCommunicationResponse() }
            let question = try await app.askToChat(with: "Sam", handle: "sam")
            #expect(try ChatApp.mirrored(question) == question)
            let seen = try await alice.waitForQuestion(question.id)
            #expect(seen.question.note == nil && seen.appBundleID == Self.bundleID)
            try await alice.approve(question.id)
            let response = try #require(await chatAnswer.value)
            #expect(response.question.id == question.id && response.choice.answer == .approval)
            #expect(response.question.topic.personInformation.first?.nameComponents?.givenName == "Sam")

            // Both remote flows send the question and return at once; the answer comes through responses(for:).
            for flow in [PermissionFlow.askToApprove, .acknowledgmentAlert] {
                let (update, result) = try await app.askForUpdate("This update adds video calls.", flow: flow)
                let updateAnswer = Task { await app.updateResponse(to: update.id) }
                #expect(result == .askToApprove(didSend: true), "\(flow)")
                #expect(ChatApp.describe(result) == "askToApprove(didSend: true)")
                let asked = try await alice.waitForQuestion(update.id)
                guard case .significantAppUpdate(let description) = asked.question.topic else {
                    Issue.record("not a significant-update question: \(asked.question.topic)")
                    return
                }
                #expect(description == "This update adds video calls.")
                try await alice.decline(update.id)
                let answer = try #require(await updateAnswer.value)
                #expect(answer.question.id == update.id && answer.choice.answer == .denial)
            }
            await alice.close()
            await app.center.communicationLimits.close()
        }
    }

    @Test func approveInPersonTakesTheScreenTimePasscodeOnTheChildsDevice() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = ChatApp(center: AskCenter(fleet.app(Self.bundleID, on: "emma-tablet")))
            let alice = try await fleet.parent(on: "alice-phone")
            try await alice.setPasscode("2468", of: "emma")
            let atTablet = try await ChildConsole(socketPath: fleet.socket(of: "emma-tablet"))

            let flow = Task { try await app.askForUpdate("This update adds a public feed.", flow: .approveInPerson) }
            let pending = try await Self.pendingUpdate("This update adds a public feed.", at: alice, in: fleet)
            try await atTablet.approveInPerson(pending, passcode: "2468")
            let (question, result) = try await flow.value
            #expect(question.id == pending && result == .approveInPerson(approved: true))

            // Cancelled while it waits: the flow ends with `.cancel` and the question is withdrawn.
            let cancelled = Task { try await app.askForUpdate("This update adds stickers.", flow: .approveInPerson) }
            let waiting = try await Self.pendingUpdate("This update adds stickers.", at: alice, in: fleet)
            cancelled.cancel()
            #expect(try await cancelled.value.1 == .cancel)
            try await fleet.eventually("the cancelled question is withdrawn") {
                try await !alice.pending().contains { $0.question.id == waiting }
            }
            await atTablet.close()
            await alice.close()
            await app.center.communicationLimits.close()
        }
    }

    @Test func askErrorsComeInApplesShapeWithTheDetailOneStepAway() async throws {
        let missing = NSTemporaryDirectory() + "apple-none-\(UUID().uuidString.prefix(8))/child-device.sock"
        let app = ChatApp(center: AskCenter(socketPath: missing, bundleID: Self.bundleID))
        do {
            _ = try await app.askToChat(with: "Sam", handle: "sam")
            Issue.record("asked without a daemon")
        } catch {
            let message = ChatApp.message(for: error)
            #expect(message.hasPrefix("systemError:") && message.contains(missing), "\(message)")
            guard case .systemError(let underlying as AskFailure) = error as? AskError else {
                Issue.record("\(error)")
                return
            }
            #expect(underlying == .notAvailable(reason: .daemonNotRunning(socketPath: missing)))
        }
        // A question with nobody in it is refused before anything is sent; validate() names the rule.
        let empty = PermissionQuestion<CommunicationTopic>(handles: [])
        await #expect(throws: AskError.self) { try await app.center.ask(empty, in: app.viewController) }
        do {
            try await app.center.ask(empty, in: app.viewController)
        } catch {
            #expect(ChatApp.message(for: error) == "invalidQuestion")
        }
        #expect(throws: AskFailure.self) { try empty.validate() }
        #expect(
            AskError(.notAvailable(reason: .notAChild(message: "an adult"))).errorDescription?.contains("not a child")
                == true)
        #expect(ChatApp.message(for: AskError(.unknown(reason: "x"))) == "unknown")
        #expect(ChatApp.message(for: AskError.communicationLimitsNotEnabled) == "communicationLimitsNotEnabled")
        #expect(ChatApp.message(for: AskError.contactSyncNotSetup) == "contactSyncNotSetup")
    }

    @available(*, deprecated, message: "exercises the deprecated API on purpose")
    @Test func ageRangesAndApplesErrorsThroughTheInSpelling() async throws {
        try await Fleet.with(Self.family) { fleet in
            let alice = try await fleet.ageConsole(on: "alice-phone")
            try await alice.setSharing(.always, of: "emma")
            let carol = try await fleet.ageConsole(on: "carol-laptop")
            try await carol.setSharing(.always, of: "carol")

            let emma = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: "emma-tablet"))
            guard case .sharing(let child) = try await emma.range(gates: 13, 16) else {
                Issue.record("emma's range was not shared")
                return
            }
            #expect(child.lowerBound == nil && child.upperBound == 12)
            #expect(LandmarksApp.assurance(of: child.ageRangeDeclaration) == "guardianDeclared")
            let controls = LandmarksApp.controls(child.activeParentalControls)
            #expect(controls.limits && controls.text.contains("communicationLimits"))

            let adult = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: "carol-laptop"))
            guard case .sharing(let grown) = try await adult.range(gates: 18) else {
                Issue.record("carol's range was not shared")
                return
            }
            #expect(grown.lowerBound == 18 && LandmarksApp.assurance(of: grown.ageRangeDeclaration) == "selfDeclared")

            // Apple's errors where Apple documents them.
            do {
                _ = try await emma.range(gates: 13, 14)
                Issue.record("a one-year range was accepted")
            } catch { #expect(LandmarksApp.message(for: error) == "invalidRequest") }
            let noa = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: "noa-tablet"))
            do {
                _ = try await noa.range(gates: 13)
                Issue.record("noa, with no birth date, got a range")
            } catch { #expect(LandmarksApp.message(for: error) == "invalidAccount") }
            let nowhere = LandmarksApp(
                service: AgeRangeService(socketPath: fleet.socket(of: "emma-tablet") + ".none", bundleID: Self.bundleID)
            )
            do {
                _ = try await nowhere.range(gates: 13)
                Issue.record("a range without a daemon")
            } catch { #expect(LandmarksApp.message(for: error) == "notAvailable") }

            await fleet.currentBroker.stop()
            try await fleet.eventually("emma's tablet notices") { try await !fleet.status(of: "emma-tablet").linked }
            do {
                _ = try await emma.range(gates: 10)
                Issue.record("a new range without a broker")
            } catch { #expect(LandmarksApp.message(for: error) == "network") }
            await alice.close()
            await carol.close()
        }
    }

    /// The id of the significant-update question about `description` once it reaches `parent` (polled: the app's
    /// flow holds the id until it returns).
    static func pendingUpdate(_ description: String, at parent: ParentConsole, in fleet: Fleet) async throws -> UUID {
        for _ in 0..<400 {
            let match = try await parent.pending().first { asked in
                if case .significantAppUpdate(description) = asked.question.topic { return true }
                return false
            }
            if let match { return match.question.id }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FleetError("the update question \"\(description)\" never reached the parent", logs: fleet.logs())
    }
}
