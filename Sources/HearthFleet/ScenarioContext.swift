import DeclaredAgeRange
import Foundation
import HearthClient
import HearthCore
import HearthProtocol
import PermissionKit

/// One scenario run's state: the questions asked by name, and the apps and parent consoles the steps opened
/// (kept for the whole run, as a real app or person would be; they ride over daemon restarts).
final class ScenarioContext {
    let fleet: Fleet
    let timeout: Duration
    private var questions: [String: PermissionQuestion<CommunicationTopic>] = [:]
    private var apps: [String: (limits: CommunicationLimits, responses: AppResponses)] = [:]
    private var consoles: [DeviceID: ParentConsole] = [:]
    /// Age range requests by name, with the app's service (closed at the end).
    var ageRequests: [String: (service: AgeRangeService, answer: Task<AgeRangeService.Response, any Error>)] = [:]

    init(fleet: Fleet, timeout: Duration) {
        self.fleet = fleet
        self.timeout = timeout
    }

    func perform(_ step: Scenario.Step) async throws {
        switch step {
        case .ask(let ask): try await self.ask(ask)
        case .approve(let answer): try await self.answer(answer, approve: true)
        case .decline(let answer): try await self.answer(answer, approve: false)
        case .revoke(let revoke): try await self.revoke(revoke)
        case .limits(let limits): try await self.limits(limits)
        case .contacts, .passcode, .approveInPerson, .withdraw, .ageSharing, .ageRequest, .agePrompt:
            try await performFamilyStep(step)
        case .expect(let expectation): try await expect(expectation)
        case .fault(let fault, let target): try await inject(fault, into: target)
        case .advanceClock(let by): try fleet.advanceClock(by: by.duration)
        case .wait(let time): try await Task.sleep(for: time.duration)
        }
    }

    func close() async {
        for (limits, responses) in apps.values {
            responses.cancel()
            await limits.close()
        }
        for console in consoles.values { await console.close() }
        for (service, answer) in ageRequests.values {
            answer.cancel()
            await service.close()
        }
    }

    // MARK: steps

    private func ask(_ ask: Scenario.Ask) async throws {
        var topic = CommunicationTopic(
            personInformation: try ask.handles.map { PersonInformation(handle: try Self.handle($0)) })
        topic.actions = Set(
            try ask.actions.map { name in
                guard
                    let action = CommunicationTopic.Action.allCases.first(where: {
                        "\($0)".lowercased() == name.lowercased()
                    })
                else {
                    throw StepFailure(
                        "unknown action '\(name)'; actions are \(CommunicationTopic.Action.allCases.map { "\($0)" }.joined(separator: ", "))"
                    )
                }
                return action
            })
        let question = PermissionQuestion(communicationTopic: topic)
        question.note = ask.note
        // Against the broker's clock, which decides expiry (and may have been advanced).
        if let expiresIn = ask.expiresIn {
            question.expirationDate = fleet.brokerNow.addingTimeInterval(expiresIn.seconds)
        }
        questions[ask.name] = question
        let limits = app(ask.app, on: ask.on).limits
        try await failing(ask.error, "the ask") { try await limits.ask(question) }
    }

    private func answer(_ answer: Scenario.Answer, approve: Bool) async throws {
        let question = try self.question(answer.question)
        let console = try await self.console(on: answer.on)
        do {
            let resolution =
                approve
                ? try await console.approve(question.id, message: answer.message)
                : try await console.decline(question.id, message: answer.message)
            if let expected = answer.error {
                throw StepFailure(
                    "the answer was accepted (\(resolution.choice.id) by \(resolution.answeredBy ?? "-")); expected error \(expected)"
                )
            }
        } catch let reply as ErrorReply {
            guard let expected = answer.error else {
                throw StepFailure("the answer was refused: \(reply.code): \(reply.message)")
            }
            guard "\(reply.code)".lowercased() == expected.lowercased() else {
                throw StepFailure("the answer was refused with \(reply.code) (\(reply.message)), not \(expected)")
            }
        }
    }

    private func revoke(_ revoke: Scenario.Revoke) async throws {
        let console = try await self.console(on: revoke.on)
        try await expecting(revoke.error, "the revoke") {
            _ = try await console.revoke(try revoke.handles.map(Self.handle), of: revoke.child)
        }
    }

    private func limits(_ step: Scenario.Limits) async throws {
        let console = try await self.console(on: step.on)
        try await expecting(step.error, "the limits change") {
            var settings = try await console.limits(of: step.child).settings
            if let enabled = step.enabled { settings.enabled = enabled }
            if let scope = step.screenTime { settings.screenTime = scope }
            if let scope = step.downtime { settings.downtime = scope }
            if let schedule = step.schedule {
                settings.downtimeSchedule = CommunicationSettings.Downtime(text: schedule)
            }
            if let editing = step.contactEditing { settings.allowContactEditing = editing }
            try await console.setLimits(settings, of: step.child)
        }
    }

    private func expect(_ expectation: Scenario.Expectation) async throws {
        let within = expectation.within?.duration ?? timeout
        let fleet = self.fleet
        let what = "expect " + expectation.summary
        switch expectation.check {
        case .pending(let name, let pending):
            let id = try question(name).id
            let console = try await self.console(on: expectation.on)
            try await fleet.eventually(what, timeout: within) {
                try await console.pending().contains { $0.question.id == id } == pending
            }
        case .response(let name):
            let id = try question(name).id
            let responses = app(expectation.app, on: expectation.on).responses
            try await fleet.eventually(what, timeout: within) { !responses.responses(for: id).isEmpty }
            let got = responses.responses(for: id)
            guard got.count == 1 else { throw StepFailure("the app got \(got.count) responses to \(name), not one") }
            let response = got[0]
            var mismatches: [String] = []
            if let answer = expectation.answer, "\(response.choice.answer)" != answer {
                mismatches.append("answer \(response.choice.answer), not \(answer)")
            }
            if let by = expectation.by, response.answeredBy != by {
                mismatches.append("answered by \(response.answeredBy ?? "nobody"), not \(by)")
            }
            if let reason = expectation.reason, "\(response.reason)" != reason {
                mismatches.append("reason \(response.reason), not \(reason)")
            }
            if let message = expectation.message, response.message != message {
                mismatches.append("message \(response.message.map { "'\($0)'" } ?? "none"), not '\(message)'")
            }
            if !mismatches.isEmpty {
                throw StepFailure("the response to \(name) has " + mismatches.joined(separator: "; "))
            }
        case .known(let text):
            let limits = app(expectation.app, on: expectation.on).limits
            let handle = try Self.handle(text)
            try await fleet.eventually(what, timeout: within) { await limits.isKnownHandle(handle) }
        case .unknown(let text):
            let limits = app(expectation.app, on: expectation.on).limits
            if await limits.isKnownHandle(try Self.handle(text)) {
                throw StepFailure("\(text) is known on \(expectation.on)")
            }
        case .linked(let linked):
            let device = expectation.on
            try await fleet.eventually(what, timeout: within) { try await fleet.status(of: device).linked == linked }
        case .notified(let name):
            let id = try question(name).id
            let socket = fleet.socket(of: expectation.on)
            let kind = expectation.kind
            try await fleet.eventually(what, timeout: within) {
                try await ParentConsole.recentNotifications(socketPath: socket).contains {
                    $0.questionID == id && (kind == nil || $0.kind.name == kind)
                }
            }
        case .ageResponse(let name):
            try await expectAgeResponse(name, expectation, within: within)
        case .history(let child):
            try await expectHistory(of: child, expectation, within: within)
        }
    }

    private func inject(_ fault: Scenario.Fault, into target: String) async throws {
        if target == Scenario.broker {
            switch fault {
            case .crash: await fleet.currentBroker.crash()
            case .stop: await fleet.currentBroker.stop()
            case .start: try await fleet.startBrokerAgain()
            case .restart: try await fleet.restartBroker()
            default: throw StepFailure("the broker cannot \(fault.rawValue)")
            }
            return
        }
        if let number = Scenario.brokerNumber(target) {
            try await inject(fault, intoBroker: number)
            return
        }
        let daemon = try fleet.daemon(target)
        switch fault {
        case .crash: await daemon.crash()
        case .stop: await daemon.stop()
        case .start: try await daemon.start()
        case .restart: try await fleet.restart(target)
        case .pause: try daemon.pause()
        case .resume: try daemon.resume()
        case .cut: try await fleet.cut(target)
        case .restore: try fleet.restore(target)
        }
    }

    /// A fault of one broker of several: `cut` and `restore` its links to the devices and to PostgreSQL.
    private func inject(_ fault: Scenario.Fault, intoBroker number: Int) async throws {
        switch fault {
        case .crash: try await fleet.killBroker(number)
        case .stop: try await fleet.broker(number).daemon.stop()
        case .start: try await fleet.broker(number).start(timeout: .seconds(30))
        case .restart: try await fleet.restartBroker(number)
        case .pause: try fleet.pauseBroker(number)
        case .resume: try fleet.continueBroker(number)
        case .cut: try await fleet.cutBroker(number)
        case .restore: try fleet.restoreBroker(number)
        }
    }

    // MARK: helpers

    func question(_ name: String) throws -> PermissionQuestion<CommunicationTopic> {
        guard let question = questions[name] else { throw StepFailure("no question '\(name)' was asked") }
        return question
    }

    func app(_ bundleID: String, on device: DeviceID) -> (limits: CommunicationLimits, responses: AppResponses) {
        let key = device + "\u{0}" + bundleID
        if let app = apps[key] { return app }
        let limits = fleet.app(bundleID, on: device)
        let app = (limits, AppResponses(limits))
        apps[key] = app
        return app
    }

    func console(on device: DeviceID) async throws -> ParentConsole {
        if let console = consoles[device] { return console }
        let console = try await fleet.parent(on: device)
        consoles[device] = console
        return console
    }

    /// `kind:value` as hearthctl reads it (`CommunicationHandle(parsing:bareIsCustom:)`); a bare value is a custom
    /// handle (a username). The scenario's handles were checked before the fleet started.
    static func handle(_ text: String) throws -> CommunicationHandle {
        try CommunicationHandle(parsing: text, bareIsCustom: true)
    }

    struct StepFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
