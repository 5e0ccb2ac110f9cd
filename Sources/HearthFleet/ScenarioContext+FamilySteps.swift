import DeclaredAgeRange
import Foundation
import HearthClient
import HearthCore
import HearthProtocol
import PermissionKit

extension ScenarioContext {
    /// Runs a step of `Scenario+FamilySteps`: contacts, passcode, approveInPerson, withdraw and the age range steps.
    func performFamilyStep(_ step: Scenario.Step) async throws {
        switch step {
        case .contacts(let step):
            let console = try await console(on: step.on)
            let add =
                try step.add.map { Contact(handle: try Self.handle($0)) }
                + step.addDowntime.map { Contact(handle: try Self.handle($0), allowedDuringDowntime: true) }
            try await expecting(step.error, "the contacts change") {
                _ = try await console.editContacts(of: step.child, add: add, remove: try step.remove.map(Self.handle))
            }
        case .passcode(let step):
            let console = try await console(on: step.on)
            try await expecting(step.error, "the passcode") {
                try await console.setPasscode(step.passcode, of: step.child)
            }
        case .approveInPerson(let step):
            let id = try question(step.question).id
            let console = try await ChildConsole(socketPath: fleet.socket(of: step.on))
            defer { Task { await console.close() } }
            try await expecting(step.error, "the approval in person") {
                _ = try await console.approveInPerson(id, passcode: step.passcode)
            }
        case .withdraw(let step):
            try await withdraw(step)
        case .ageSharing(let step):
            let console = try await fleet.ageConsole(on: step.on)
            defer { Task { await console.close() } }
            try await expecting(step.error, "the sharing setting") {
                try await console.setSharing(step.setting, of: step.member)
            }
        case .ageRequest(let step):
            let service = fleet.ageRange(step.app, on: step.on)
            let gates = step.gates
            let answer = Task {
                try await service.requestAgeRange(
                    ageGates: gates[0], gates.count > 1 ? gates[1] : nil, gates.count > 2 ? gates[2] : nil)
            }
            ageRequests[step.name] = (service, answer)
        case .agePrompt(let step):
            try await answerAgePrompt(step)
        default:
            return
        }
    }

    private func withdraw(_ step: Scenario.Withdraw) async throws {
        let question = try question(step.question)
        let limits = app(step.app, on: step.on).limits
        try await failing(step.error, "the withdrawal") { try await limits.withdraw(question) }
    }

    private func answerAgePrompt(_ step: Scenario.AgePromptAnswer) async throws {
        let console = try await fleet.ageConsole(on: step.on)
        defer { Task { await console.close() } }
        let prompt = try await console.waitForPrompt(app: step.app, timeout: timeout)
        try await expecting(step.error, "the answer to the prompt") {
            _ = try await console.answer(prompt.id, share: step.share)
        }
    }

    func expectAgeResponse(_ name: String, _ expectation: Scenario.Expectation, within: Duration) async throws {
        guard let request = ageRequests[name] else { throw StepFailure("no age request '\(name)' was made") }
        // Awaiting a task's value does not end when the waiter is cancelled: the deadline cancels the request itself.
        let answer = request.answer
        let timer = Task {
            try await Task.sleep(for: within)
            answer.cancel()
        }
        defer { timer.cancel() }
        let response: AgeRangeService.Response
        do {
            response = try await answer.value
        } catch {
            throw StepFailure("the age range request \(name) got no answer within \(within): \(error)")
        }
        switch (response, expectation.answer) {
        case (.declinedSharing, "sharing"):
            throw StepFailure("the age range request \(name) was declined, not shared")
        case (.sharing(let range), "declined"):
            throw StepFailure("the age range request \(name) was shared (\(Self.text(of: range))), not declined")
        case (.sharing(let range), _):
            if let expected = expectation.range, Self.text(of: range) != expected {
                throw StepFailure("the age range request \(name) shared \(Self.text(of: range)), not \(expected)")
            }
        case (.declinedSharing, _):
            if let expected = expectation.range {
                throw StepFailure("the age range request \(name) was declined; expected \(expected)")
            }
        }
    }

    func expectHistory(of child: MemberID, _ expectation: Scenario.Expectation, within: Duration) async throws {
        let console = try await console(on: expectation.on)
        let id = try expectation.question.map { try question($0).id }
        try await fleet.eventually("expect " + expectation.summary, timeout: within) {
            try await console.history(of: child).contains { entry in
                (expectation.entry == nil || entry.kind.name == expectation.entry)
                    && (expectation.by == nil || entry.actor == expectation.by)
                    && (id == nil || entry.questionID == id)
            }
        }
    }

    /// `13-15`, `16-` or `-12`, as scenarios write a range.
    static func text(of range: AgeRangeService.AgeRange) -> String {
        (range.lowerBound.map(String.init) ?? "") + "-" + (range.upperBound.map(String.init) ?? "")
    }

    /// Runs an app's call; with `expected` set, it must fail with an error whose description contains that text.
    func failing(_ expected: String?, _ what: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            guard let expected else { throw StepFailure("\(what) failed: \(error)") }
            guard "\(error)".lowercased().contains(expected.lowercased()) else {
                throw StepFailure("\(what) failed with \(error), not \(expected)")
            }
            return
        }
        if let expected { throw StepFailure("\(what) succeeded; expected it to fail with \(expected)") }
    }

    /// Runs `body`; with `expected` set, it must be refused with that error code.
    func expecting(_ expected: String?, _ what: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let reply as ErrorReply {
            guard let expected else { throw StepFailure("\(what) was refused: \(reply.code): \(reply.message)") }
            guard "\(reply.code)".lowercased() == expected.lowercased() else {
                throw StepFailure("\(what) was refused with \(reply.code) (\(reply.message)), not \(expected)")
            }
            return
        }
        if let expected { throw StepFailure("\(what) was accepted; expected error \(expected)") }
    }
}
