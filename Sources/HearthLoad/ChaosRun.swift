import Foundation
import HearthCore
public import HearthFleet
import HearthProtocol
import PermissionKit
import Synchronization

/// Questions asked and answered through real daemons (child-device and parent-device processes, apps through
/// PermissionKit, parents through parent-device's socket) while the broker and the device daemons are killed,
/// paused, restarted and cut off at seeded moments; then a check, from the devices' and apps' side, that nothing was
/// lost or delivered twice (`ChaosVerdict`). `hearth-loadtest chaos` runs it; docs/RELIABILITY.md has figures.
public struct ChaosRun: Sendable {
    /// One family: two parents answering (Alice approves, Bob declines: they race), a child with two devices, each
    /// running the same app, which asks.
    public static let spec = FleetSpec(families: [
        .init(
            "chaos",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .guardian("bob", devices: ["bob-phone"]),
                .child("emma", devices: ["emma-tablet", "emma-phone"]),
            ])
    ])
    static let childDevices: [DeviceID] = ["emma-tablet", "emma-phone"]
    static let parentDevices: [DeviceID] = ["alice-phone", "bob-phone"]
    static let bundleID = "com.example.chat"

    public let options: ChaosOptions

    public init(options: ChaosOptions) { self.options = options }

    /// The fleet: `spec`'s family, on one broker or on a cluster of `options.brokers` on PostgreSQL.
    var spec: FleetSpec {
        guard options.brokers > 1 else { return Self.spec }
        return FleetSpec(families: Self.spec.families, store: .postgres, brokers: options.brokers)
    }

    /// No ask limit; in a cluster, short leases, so that a lost broker's families move within seconds.
    var brokerArguments: [String] {
        ["--ask-limit", "1000000/3600"] + (options.brokers > 1 ? ["--lease-seconds", "2"] : [])
    }

    /// Runs the whole thing; the report says what happened and what, if anything, was lost or duplicated.
    public func run() async throws -> ChaosReport {
        let started = ContinuousClock.now
        let fleet = try await Fleet.launch(spec, brokerArguments: brokerArguments)
        do {
            let report = try await run(on: fleet, started: started)
            await fleet.shutdown()
            return report
        } catch {
            let logs = fleet.logs()
            await fleet.shutdown()
            throw FleetError("the chaos run stopped: \(error)", logs: logs)
        }
    }

    private func run(on fleet: Fleet, started: ContinuousClock.Instant) async throws -> ChaosReport {
        let ledger = ChaosLedger()
        let random = SeededRandom(seed: options.seed)
        let asking = ChaosSwitch()
        let answering = ChaosSwitch()
        let apps = Self.childDevices.map { (device: $0, app: fleet.app(Self.bundleID, on: $0, timeout: .seconds(3))) }
        let collectors = apps.map { (device: $0.device, responses: AppResponses($0.app)) }
        var askers: [Task<Void, Never>] = []
        for (index, entry) in apps.enumerated() {
            let stream = random.derived(UInt64(index + 1))
            askers.append(ask(on: entry.device, with: entry.app, random: stream, ledger, asking))
        }
        let answerers = Self.parentDevices.map { answer(on: $0, of: fleet, ledger, answering) }

        try await injectFaults(into: fleet, random: random.derived(100), ledger, started: started)
        asking.turnOff()
        for asker in askers { await asker.value }
        let faultsEnded = ContinuousClock.now
        try await heal(fleet)
        let settled = await settle(fleet, ledger, collectors)
        // Late duplicates would come now, after everything was delivered once.
        try await Task.sleep(for: .seconds(2))
        answering.turnOff()
        for answerer in answerers { await answerer.value }

        var verdict = ChaosVerdict()
        for collector in collectors {
            verdict.delivered[collector.device] = Dictionary(grouping: collector.responses.responses, by: \.question.id)
                .mapValues { $0.map(ChaosLedger.Answer.init) }
            collector.responses.cancel()
        }
        for (_, app) in apps { await app.close() }
        try await ChaosState.read(fleet, into: &verdict)
        return ChaosReport(
            options: options, ledger: ledger, problems: verdict.problems(ledger), settled: settled,
            faultTime: faultsEnded - started, settleTime: ContinuousClock.now - faultsEnded)
    }

    // MARK: the actors of the run

    /// The app on `device` asks new questions until `asking` is off, each retried with its id until its daemon
    /// takes it.
    private func ask(
        on device: DeviceID, with app: CommunicationLimits, random: SeededRandom, _ ledger: ChaosLedger,
        _ asking: ChaosSwitch
    ) -> Task<Void, Never> {
        let gap = options.askGap
        return Task {
            var random = random
            var count = 0
            while asking.isOn {
                count += 1
                var topic = CommunicationTopic(personInformation: [
                    PersonInformation(handle: CommunicationHandle(value: "\(device)-\(count)", kind: .custom))
                ])
                topic.actions = [.message]
                let question = PermissionQuestion(communicationTopic: topic)
                ledger.asking(question.id, on: device)
                let deadline = ContinuousClock.now + .seconds(90)
                while ContinuousClock.now < deadline {
                    do {
                        try await app.ask(question)
                        ledger.accepted(question.id)
                        break
                    } catch {
                        ledger.askRetried()
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                }
                try? await Task.sleep(for: random.milliseconds(gap))
            }
        }
    }

    /// The parent at `device` answers whatever is pending there until `answering` is off: Alice approves, Bob
    /// declines. A console whose daemon went away is replaced.
    private func answer(
        on device: DeviceID, of fleet: Fleet, _ ledger: ChaosLedger, _ answering: ChaosSwitch
    ) -> Task<Void, Never> {
        let choice = device == "alice-phone" ? PermissionChoice.approve.id : PermissionChoice.decline.id
        return Task {
            var console: ParentConsole?
            while answering.isOn {
                if console == nil { console = try? await fleet.parent(on: device) }
                do {
                    for asked in try await console?.pending() ?? [] where answering.isOn {
                        do {
                            let resolution = try await console!.answer(asked.question.id, choiceID: choice)
                            ledger.answered(asked.question.id, ChaosLedger.Answer(resolution))
                        } catch is ErrorReply {
                            ledger.answerRefused()  // the other parent was first
                        }
                    }
                } catch {
                    await console?.close()
                    console = nil
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            await console?.close()
        }
    }

    /// Faults at random moments, one at a time, until each kind of daemon was killed `killsPerDaemon` times.
    private func injectFaults(
        into fleet: Fleet, random: SeededRandom, _ ledger: ChaosLedger, started: ContinuousClock.Instant
    ) async throws {
        var random = random
        while ChaosFault.Kind.allCases.contains(where: { (ledger.kills[$0] ?? 0) < options.killsPerDaemon }) {
            try await Task.sleep(for: random.milliseconds(options.faultGap))
            let kind = ChaosFault.Kind.allCases.randomElement(using: &random)!
            let target: DeviceID? =
                switch kind {
                case .broker: nil
                case .child: Self.childDevices.randomElement(using: &random)
                case .parent: Self.parentDevices.randomElement(using: &random)
                }
            // Kills count twice: they are what a run must have at least `killsPerDaemon` of.
            let broker =
                kind == .broker && options.brokers > 1 ? Int.random(in: 1...options.brokers, using: &random) : nil
            // A device's relays exist only in a fleet of one broker; a cluster's brokers have relays of their own.
            let cuttable = options.brokers > 1 ? broker != nil : target != nil
            let faults: [ChaosFault] = [.kill, .kill, .pause, .restart] + (cuttable ? [.cut] : [])
            let fault = faults.randomElement(using: &random)!
            let outage = random.milliseconds(options.outage)
            let name = target ?? broker.map { "family-broker \($0)" } ?? "family-broker"
            ledger.fault(fault, kind: kind, target: name, at: ContinuousClock.now - started)
            // Unbuffered, so each fault shows as it happens, in a log file too.
            if options.verbose { FileHandle.standardOutput.write(Data((ledger.faults.last! + "\n").utf8)) }
            try await fault.inject(into: target, broker: broker, of: fleet, outage: outage)
        }
    }

    /// Every daemon running and reachable again.
    private func heal(_ fleet: Fleet) async throws {
        if options.brokers > 1 {
            for broker in fleet.brokers {
                try? fleet.continueBroker(broker.number)
                try fleet.restoreBroker(broker.number)
                if !broker.daemon.isRunning { try await fleet.restartBroker(broker.number) }
            }
        } else {
            try? fleet.currentBroker.resume()
            if !fleet.currentBroker.isRunning { try await fleet.startBrokerAgain() }
        }
        for device in Self.childDevices + Self.parentDevices {
            let daemon = try fleet.daemon(device)
            try? daemon.resume()
            if options.brokers == 1 { try fleet.restore(device) }
            if !daemon.isRunning { try await daemon.start() }
        }
        try await fleet.waitUntilAllLinked(timeout: .seconds(60))
    }

    /// Waits until every accepted question reached the app on every child device and no parent shows it pending.
    private func settle(
        _ fleet: Fleet, _ ledger: ChaosLedger, _ collectors: [(device: DeviceID, responses: AppResponses)]
    ) async -> Bool {
        let ids = Set(ledger.questions.filter(\.asked.accepted).map(\.id))
        let done: @Sendable () async throws -> Bool = {
            for collector in collectors {
                let delivered = Set(collector.responses.responses.map(\.question.id))
                if !delivered.isSuperset(of: ids) { return false }
            }
            for device in Self.parentDevices {
                let console = try await fleet.parent(on: device)
                let pending = try await console.pending()
                await console.close()
                if !pending.isEmpty { return false }
            }
            return true
        }
        return (try? await fleet.eventually("everything is delivered", timeout: options.settleTimeout, done)) != nil
    }
}

/// An on/off switch shared by a run's tasks.
final class ChaosSwitch: Sendable {
    private let on = Mutex(true)
    var isOn: Bool { on.withLock { $0 } }
    func turnOff() { on.withLock { $0 = false } }
}

extension ChaosLedger.Answer {
    init(_ resolution: Resolution) {
        self.init(choice: resolution.choice.id, answeredBy: resolution.answeredBy, resolvedAt: resolution.resolvedAt)
    }

    init(_ response: PermissionResponse<CommunicationTopic>) {
        self.init(choice: response.choice.id, answeredBy: response.answeredBy, resolvedAt: response.resolvedAt)
    }
}
