import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import Synchronization
import Testing

@testable import DeclaredAgeRange

/// Declared Age Range through the three daemons as real processes: an app asks through the DeclaredAgeRange library,
/// the broker computes the range, people answer prompts and set sharing through their devices' daemons.
@Suite("Declared Age Range across real daemons", .serialized, .tags(.fleet))
struct AgeRangeAcrossDaemonsTests {
    /// Birth dates far from any birthday around the test's real date, so the ranges below hold all year round
    /// except near 6 May (emma turns 13 on 2027-05-06; the test expects 12 before it and 13 after it).
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .init("alice", role: .organizer, birthDate: "1985-01-01", devices: ["alice-phone"]),
                .init("carol", role: .adult, birthDate: "1960-01-01", devices: ["carol-laptop"]),
                .init("emma", role: .child, birthDate: "2014-05-06", devices: ["emma-tablet", "emma-phone"]),
                .init("noa", role: .child, birthDate: "", devices: ["noa-tablet"]),
            ])
    ])

    static let app = "com.example.landmarks"

    /// emma's range under gates 13 and 16 today.
    static var emmaUnder13and16: AgeRangeService.AgeRange {
        let age = BirthDate("2014-05-06")!.age(on: Date(), in: TimeZone(identifier: "UTC")!)
        let (lower, upper) = AgeRangeRules.bounds(age: age, gates: [13, 16])
        return AgeRangeService.AgeRange(
            lowerBound: lower, upperBound: upper, ageRangeDeclaration: .guardianDeclared,
            activeParentalControls: .communicationLimits)
    }

    @Test func askFirstPromptsTheMembersDevicesAndTheAnswerIsSharedByAllOfThem() async throws {
        try await Fleet.with(Self.family, brokerArguments: ["--age-prompt-timeout", "30"]) { fleet in
            let tablet = fleet.ageRange(Self.app, on: "emma-tablet")
            let phone = fleet.ageRange(Self.app, on: "emma-phone")
            let emmaPhone = try await fleet.ageConsole(on: "emma-phone")
            let alicePhone = try await fleet.ageConsole(on: "alice-phone")

            // Ask First is the default: the request waits while emma's devices show the prompt.
            let request = Task { try await tablet.requestAgeRange(ageGates: 13, 16) }
            let prompt = try await emmaPhone.waitForPrompt(app: Self.app)
            #expect(prompt.memberID == "emma" && prompt.gates == [13, 16])
            let tabletConsole = try await fleet.ageConsole(on: "emma-tablet")
            _ = try await tabletConsole.waitForPrompt(app: Self.app)
            #expect(try await alicePhone.prompts().isEmpty, "a parent's device does not get the child's prompt")

            // Answered on the phone, delivered to the app on the tablet.
            try await emmaPhone.answer(prompt.id, share: true)
            #expect(try await request.value == .sharing(range: Self.emmaUnder13and16))
            try await fleet.eventually("the prompt is gone from both devices") {
                let onPhone = try await emmaPhone.prompts()
                let onTablet = try await tabletConsole.prompts()
                return onPhone.isEmpty && onTablet.isEmpty
            }

            // The answer is remembered per (member, app) for all of emma's devices: the phone gets it at once.
            #expect(try await phone.requestAgeRange(ageGates: 13, 16) == .sharing(range: Self.emmaUnder13and16))
            #expect(try await emmaPhone.prompts().isEmpty, "no new prompt")

            // Answering again is refused with the reason.
            await #expect(throws: ErrorReply.self) { try await emmaPhone.answer(prompt.id, share: false) }

            for closable in [tabletConsole, emmaPhone, alicePhone] { await closable.close() }
            await tablet.close()
            await phone.close()
        }
    }

    @Test func settingsTimeoutsDeclinesClearingAndTheStream() async throws {
        try await Fleet.with(Self.family, brokerArguments: ["--age-prompt-timeout", "2"]) { fleet in
            let tablet = fleet.ageRange(Self.app, on: "emma-tablet")
            let emmaTablet = try await fleet.ageConsole(on: "emma-tablet")
            let alice = try await fleet.ageConsole(on: "alice-phone")
            let carol = try await fleet.ageConsole(on: "carol-laptop")

            // A prompt nobody answers declines at its deadline, and the prompt goes away.
            let started = ContinuousClock.now
            #expect(try await tablet.requestAgeRange(ageGates: 13, 16) == .declinedSharing)
            #expect(ContinuousClock.now - started >= .seconds(2))
            try await fleet.eventually("the expired prompt is withdrawn") { try await emmaTablet.prompts().isEmpty }

            // Not remembered: the next request prompts again. Declined through hearthctl, as a person would.
            let again = Task { try await tablet.requestAgeRange(ageGates: 13, 16) }
            let prompt = try await emmaTablet.waitForPrompt(app: Self.app)
            let socket = fleet.socket(of: "emma-tablet")
            let answered = try await hearthctl([
                "age", "answer", String(prompt.id.uuidString.prefix(8)), "decline", "--socket", socket,
            ])
            #expect(answered.status == 0 && answered.output.contains("declined"), "\(answered)")
            #expect(try await again.value == .declinedSharing)
            // A decline is remembered until the anniversary: no prompt, declined at once (hearthctl as the app).
            let cached = try await hearthctl([
                "age", "request", "--gates", "13,16", "--app", Self.app, "--socket", socket,
            ])
            #expect(cached.status == 0 && cached.output == "declined\n", "\(cached)")
            #expect(try await emmaTablet.prompts().isEmpty)

            // Who sets sharing: a parent for a child, an adult for themself; nothing else.
            await #expect(throws: ErrorReply.self) { try await carol.setSharing(.always, of: "emma") }
            await #expect(throws: ErrorReply.self) { try await emmaTablet.setSharing(.always, of: "emma") }
            await #expect(throws: ErrorReply.self) { try await alice.setSharing(.never, of: "carol") }
            let viaCLI = try await hearthctl([
                "age", "sharing", "emma", "always", "--socket", fleet.socket(of: "alice-phone"),
            ])
            #expect(viaCLI.status == 0 && viaCLI.output == "emma: always\n", "\(viaCLI)")

            // Always Share: clearing the cache reveals the range on the next request, and the change reaches a
            // watcher of the app on emma's other device.
            let watcher = fleet.ageRange(Self.app, on: "emma-phone")
            let changes = AgeRangeCollector(watcher)
            try await fleet.eventually("the phone's daemon registered the watcher") {
                await watcher.connection.isWatching
            }
            let cleared = try await hearthctl(["age", "clear-cache", Self.app, "--socket", socket])
            #expect(cleared.status == 0 && cleared.output == "cleared \(Self.app)\n", "\(cleared)")
            #expect(try await tablet.requestAgeRange(ageGates: 13, 16) == .sharing(range: Self.emmaUnder13and16))
            try await fleet.eventually("the phone's watcher learns the new answer") {
                changes.responses == [.sharing(range: Self.emmaUnder13and16)]
            }

            // Never Share declines without a prompt.
            try await alice.setSharing(.never, of: "emma")
            #expect(try await tablet.requestAgeRange(ageGates: 13, 16) == .declinedSharing)
            #expect(try await emmaTablet.prompts().isEmpty)

            // An adult on a parent-device: self-declared, beyond every gate, no parental controls.
            try await carol.setSharing(.always, of: "carol")
            let laptop = fleet.ageRange(Self.app, on: "carol-laptop")
            #expect(
                try await laptop.requestAgeRange(ageGates: 13, 16, 21)
                    == .sharing(range: .init(lowerBound: 18, upperBound: nil, ageRangeDeclaration: .selfDeclared)))

            changes.cancel()
            for console in [emmaTablet, alice, carol] { await console.close() }
            for service in [tablet, watcher, laptop] { await service.close() }
        }
    }

    @Test func errorsNameTheRuleOrTheReason() async throws {
        try await Fleet.with(Self.family) { fleet in
            // A rule broken, named by the daemon (the library checks first; a raw client shows the daemon does too).
            let raw = try LocalClient(
                endpoint: LocalEndpoints.ipc(fleet.socket(of: "emma-tablet")), peer: "child-device")
            try await raw.start()
            for (gates, rule) in [
                ([13, 14], "at least 2 years"), ([16, 13], "ascending"), ([5, 9, 13, 16], "1 to 3"),
            ] {
                do {
                    _ = try await raw.request(.ageRange(.request(app: Self.app, gates: gates)))
                    Issue.record("\(gates) accepted")
                } catch let error as ErrorReply {
                    #expect(error.code == .invalidAgeRequest && error.message.contains(rule), "\(error)")
                }
            }
            await raw.close()
            let cli = try await hearthctl([
                "age", "request", "--gates", "13,14", "--socket", fleet.socket(of: "emma-tablet"),
            ])
            #expect(cli.status != 0 && cli.output.contains("at least 2 years"), "\(cli)")

            // No birth date on record: no account with an age.
            let noa = fleet.ageRange(Self.app, on: "noa-tablet")
            do {
                _ = try await noa.requestAgeRange(ageGates: 13)
                Issue.record("noa got a range")
            } catch AgeRangeService.Failure.notAvailable(let reason) where reason.code == .noAccount {
                #expect(reason.message?.contains("no birth date") == true)
            }
            await noa.close()

            // A device whose key is not enrolled: the broker's ZAP handler refuses it, and the daemon says so.
            let intruder = try UnenrolledDevice(in: fleet)
            defer { intruder.stop() }
            let socket = intruder.socket
            try await fleet.eventually("the intruder's daemon is up") { FileManager.default.fileExists(atPath: socket) }
            let stranger = AgeRangeService(socketPath: socket, bundleID: Self.app, timeout: .seconds(2))
            try await fleet.eventually("the intruder learns its key is refused") {
                do {
                    _ = try await stranger.requestAgeRange(ageGates: 13)
                    return false
                } catch AgeRangeService.Failure.notAvailable(let reason) where reason.code == .deviceNotEnrolled {
                    return reason.message?.contains("not enrolled") == true
                }
            }
            await stranger.close()

            // The broker gone: the daemon answers by its deadline that it is unreachable.
            let tablet = fleet.ageRange(Self.app, on: "emma-tablet")
            await fleet.currentBroker.stop()
            try await fleet.eventually("emma's tablet notices") { try await !fleet.status(of: "emma-tablet").linked }
            do {
                _ = try await tablet.requestAgeRange(ageGates: 13)
                Issue.record("a range without a broker")
            } catch AgeRangeService.Failure.notAvailable(let reason) where reason.code == .brokerUnreachable {
                let message = reason.message ?? ""
                #expect(message.contains("not connected") || message.contains("did not answer"), "\(message)")
            }
            await tablet.close()
        }
    }
}

/// Runs hearthctl with `arguments`; returns its exit status and everything it printed.
func hearthctl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await ExecutableRun.run("hearthctl", arguments, timeout: .seconds(120))
}

/// Collects an app's age range `updates` in the background.
final class AgeRangeCollector: Sendable {
    private final class Box: Sendable {
        let items = Mutex<[AgeRangeService.Response]>([])
    }

    private let box = Box()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ service: AgeRangeService) {
        let box = self.box
        let task = Task {
            for await response in service.updates { box.items.withLock { $0.append(response) } }
        }
        self.task.withLock { $0 = task }
    }

    var responses: [AgeRangeService.Response] { box.items.withLock { $0 } }

    func cancel() { task.withLock { $0?.cancel() } }
}
