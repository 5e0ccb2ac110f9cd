import Foundation
import HearthCore
import HearthFleet
import Testing

/// The example scenarios in config/scenarios run through the real `hearth-fleet run` and pass; a scenario that
/// expects the wrong thing fails with exit status 1 and a report that says which step and why.
@Suite("Scenario files through hearth-fleet", .serialized, .tags(.fleet))
struct ScenarioFileTests {
    static let root = RepositoryRoot.path

    static var examples: [String] {
        let directory = root + "/config/scenarios"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { directory + "/" + $0 }
    }

    /// Runs hearth-fleet with `arguments`; returns its exit status and what it printed.
    static func hearthFleet(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await ExecutableRun.run("hearth-fleet", arguments, timeout: .seconds(600))
    }

    @Test func thereAreExamples() {
        #expect(Self.examples.count >= 3)
    }

    @Test(arguments: examples.map { ($0 as NSString).lastPathComponent })
    func exampleScenarioPasses(file: String) async throws {
        let (status, output) = try await Self.hearthFleet(["run", Self.root + "/config/scenarios/" + file])
        #expect(status == 0, "\(output)")
        #expect(output.contains("PASSED"))
        #expect(!output.contains("✘"))
    }

    @Test func aFailingScenarioExitsOneWithAReadableReport() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("failing-\(UUID().uuidString).yaml")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        name: deliberately failing
        timeout: 2s
        families:
          - id: appleseed
            members:
              - {id: alice, role: organizer, devices: [alice-phone]}
              - {id: emma, role: child, devices: [emma-tablet]}
        steps:
          - ask: {on: emma-tablet, as: q, handles: [pal]}
          - decline: {question: q, on: alice-phone}
          - expect: {response: q, on: emma-tablet, answer: approval}
          - expect: {known: pal, on: emma-tablet}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try await Self.hearthFleet(["run", file])
        #expect(status == 1)
        #expect(output.contains("✔  1. ask q on emma-tablet"))
        #expect(output.contains("✘  3. expect response to q on emma-tablet approval"))
        #expect(output.contains("answer denial, not approval"), "says what was wrong")
        #expect(output.contains("---- family-broker"), "shows the daemons' logs")
        #expect(output.contains("-  4. expect pal known on emma-tablet  (not run)"))
        #expect(output.contains("FAILED: deliberately failing: step 3 of 4 failed (2 passed)"))
    }

    @Test func aBadScenarioFileExitsOneAndSaysWhere() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        name: bad
        families:
          - id: appleseed
            members:
              - {id: emma, role: child, devices: [emma-tablet]}
        steps:
          - ask: {on: emma-phone, as: q, handles: [pal]}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try await Self.hearthFleet(["run", file])
        #expect(status == 1)
        #expect(
            output.contains(
                "step 1 (ask q on emma-phone (com.example.chat): pal): no device 'emma-phone' in the families"),
            "\(output)")
    }

    /// A scenario spells handles as hearthctl does: `phoneNumber:` (as hearthctl prints it) is the handle `phone:`
    /// names, so the contact added one way is known the other way.
    @Test func aHandleSpelledAsHearthctlPrintsItRuns() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("spelled-\(UUID().uuidString).yaml")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        name: spelled
        mode: inProcess
        families:
          - id: appleseed
            members:
              - {id: alice, role: organizer, devices: [alice-phone]}
              - {id: emma, role: child, devices: [emma-tablet]}
        steps:
          - contacts: {child: emma, on: alice-phone, add: ["phoneNumber:+15551234567"], addDowntime: [sam]}
          - expect: {known: "phone:+15551234567", on: emma-tablet}
          - expect: {known: "custom:sam", on: emma-tablet}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try await Self.hearthFleet(["run", file])
        #expect(status == 0, "\(output)")
        #expect(output.contains("PASSED"), "\(output)")
    }
}

/// What hearth-fleet says of a file it cannot run: where (a line and column, or a step counted from 1 as the report
/// counts), what, and nothing of daemons, since none starts.
@Suite("Scenario file mistakes through hearth-fleet", .tags(.fleet))
struct ScenarioFileMistakeTests {
    static let family = """
        name: s
        families:
          - id: f
            members:
              - {id: alice, role: organizer, devices: [alice-phone]}
              - {id: emma, role: child, devices: [emma-tablet]}
          - id: g
            members:
              - {id: jo, role: organizer, devices: [jo-phone]}

        """

    /// hearth-fleet's exit status and output for a scenario file holding `text`.
    static func run(_ text: String) async throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mistake-\(UUID().uuidString).yaml")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try await ExecutableRun.run("hearth-fleet", ["run", file], timeout: .seconds(120))
    }

    static let mistakes: [(text: String, says: String)] = [
        (family + "steps:\n  - ask: {on: emma-tablet, as: q, handles: [pal]\n", "line 12, column"),
        (family + "steps:\n  - wait: 1s\n  - wait: soon\n", "step 2, wait: 'soon' is not a duration"),
        (
            family + "steps:\n  - ask: {on: emma-tablet, as: q, handles: [pal], expiresIn: later}\n",
            "step 1, ask.expiresIn: 'later' is not a duration"
        ),
        (
            family + "steps:\n  - limits: {child: emmaa, on: alice-phone, enabled: true}\n",
            "step 1 (set limits of emmaa on alice-phone): no member 'emmaa' in the families"
        ),
        (family + "steps:\n  - revoke: {child: alice, handles: [pal], on: alice-phone}\n", "'alice' is not a child"),
        (
            family + "steps:\n  - passcode: {child: emma, on: jo-phone, set: \"1234\"}\n",
            "'jo-phone' belongs to jo, who is not in emma's family"
        ),
        (
            family + "steps:\n  - wait: 1s\n  - contacts: {child: emma, on: alice-phone, add: [\"phone:555-1234\"]}\n",
            "step 2 (contacts of emma on alice-phone: +phone:555-1234): handle 'phone:555-1234': "
                + "'555-1234' is not a phone number in E.164 form"
        ),
    ]

    @Test(arguments: mistakes.indices)
    func aMistakeIsNamedBeforeAnythingStarts(index: Int) async throws {
        let (status, output) = try await Self.run(Self.mistakes[index].text)
        #expect(status == 1)
        #expect(output.contains(Self.mistakes[index].says), "\(output)")
        #expect(!output.contains("start the fleet"), "nothing started: \(output)")
        #expect(!output.contains("family-broker"), "no daemon logs: \(output)")
    }

    @Test func aFileThatCannotBeReadSaysWhy() async throws {
        let missing = "/nonexistent-\(UUID().uuidString).yaml"
        let (status, output) = try await ExecutableRun.run("hearth-fleet", ["run", missing], timeout: .seconds(60))
        #expect(status == 1)
        #expect(output.contains("\(missing): cannot read the file: No such file or directory"), "\(output)")
        let directory = FileManager.default.temporaryDirectory.path
        let (_, asDirectory) = try await ExecutableRun.run("hearth-fleet", ["run", directory], timeout: .seconds(60))
        #expect(asDirectory.contains("Is a directory"), "\(asDirectory)")
    }

    @Test func theExpectedRefusalOfAnotherFamilysParentStillParses() throws {
        _ = try Scenario(
            yaml: Self.family + "steps:\n  - passcode: {child: emma, on: jo-phone, set: \"1\", error: notFound}\n")
    }
}

/// Scenario parsing: typos and dangling names are errors that say where, before any daemon starts.
@Suite("Scenario parsing")
struct ScenarioParsingTests {
    static func error(_ yaml: String) -> String {
        do {
            _ = try Scenario(yaml: yaml)
            return "parsed"
        } catch {
            return "\(error)"
        }
    }

    static let family = """
        name: s
        families:
          - id: f
            members:
              - {id: alice, role: organizer, devices: [alice-phone]}
              - {id: emma, role: child, devices: [emma-tablet]}

        """

    @Test func aValidScenarioParses() throws {
        let scenario = try Scenario(
            yaml: Self.family + """
                mode: inProcess
                timeout: 1500ms
                steps:
                  - ask: {on: emma-tablet, as: q, handles: ["email:pal@example.com"], expiresIn: 2h}
                  - approve: {question: q, on: alice-phone}
                  - expect: {response: q, on: emma-tablet, within: 3s}
                  - advanceClock: 30d
                  - crash: broker
                  - cut: alice-phone
                """)
        #expect(scenario.mode == .inProcess)
        #expect(scenario.timeout?.seconds == 1.5)
        #expect(scenario.steps.count == 6)
        #expect(scenario.steps.map(\.summary)[3] == "advance the broker's clock by 30d")
        #expect(try scenario.fleetSpec().families[0].members.map(\.role) == [.organizer, .child])
    }

    @Test func mistakesAreNamed() {
        #expect(
            Self.error(Self.family + "steps:\n  - ask: {on: emma-tablet, as: q, handle: [pal]}\n").contains(
                "an ask has no 'handle'"))
        #expect(
            Self.error(Self.family + "steps:\n  - approve: {question: nope, on: alice-phone}\n").contains(
                "no question 'nope' was asked"))
        #expect(
            Self.error(Self.family + "steps:\n  - limits: {child: emma, on: alice-phone, screenTime: all}\n")
                .contains("screenTime 'all' is not one of"))
        #expect(
            Self.error(Self.family + "steps:\n  - limits: {child: emma, on: alice-phone, schedule: late}\n")
                .contains("schedule 'late' is not HH:MM-HH:MM or none"))
        #expect(
            Self.error(Self.family + "steps:\n  - revoke: {child: emma, handles: [], on: alice-phone}\n")
                .contains("a revoke names at least one handle"))
        #expect(
            Self.error(Self.family + "steps:\n  - revoke: {child: emma, handles: [pal], on: emma-tablet}\n")
                .contains("is a child's device"))
        #expect(
            Self.error(
                Self.family + "steps:\n  - ask: {on: emma-tablet, as: q, handles: [pal]}\n"
                    + "  - expect: {notified: q, on: alice-phone, kind: answered}\n"
            ).contains("kind 'answered' is not one of"))
        #expect(
            Self.error(Self.family + "steps:\n  - ask: {on: alice-phone, as: q, handles: [pal]}\n").contains(
                "'alice-phone' is not a child's device"))
        #expect(Self.error(Self.family + "steps:\n  - explode: alice-phone\n").contains("'explode' is not a step"))
        #expect(Self.error(Self.family + "steps:\n  - wait: soon\n").contains("'soon' is not a duration"))
        #expect(
            Self.error(Self.family + "steps:\n  - pause: broker\n").contains(
                "the broker can crash, restart, stop or start"))
        #expect(Self.error(Self.family + "steps:\n  - expect: {on: emma-tablet}\n").contains("exactly one of"))
        #expect(Self.error("name: s\nfamilies: []\n").contains("steps: missing"))
    }

    @Test func handlesFollowHearthctlsRule() throws {
        let steps = Self.family + "steps:\n"
        _ = try Scenario(
            yaml: steps + "  - ask: {on: emma-tablet, as: q, handles: [pal, \"phoneNumber:+15551234567\"]}\n"
                + "  - expect: {known: \"emailAddress:sam@example.com\", on: emma-tablet}\n")
        #expect(
            Self.error(steps + "  - wait: 1s\n  - ask: {on: emma-tablet, as: q, handles: [pal, \"phone:555-1234\"]}\n")
                .contains(
                    "step 2 (ask q on emma-tablet (com.example.chat): pal, phone:555-1234): handle 'phone:555-1234': "
                        + "'555-1234' is not a phone number in E.164 form"))
        #expect(
            Self.error(steps + "  - revoke: {child: emma, handles: [\"email:sam@localhost\"], on: alice-phone}\n")
                .contains(
                    "step 1 (revoke email:sam@localhost for emma on alice-phone): handle 'email:sam@localhost': "
                        + "'sam@localhost' is not an email address"))
        #expect(
            Self.error(steps + "  - expect: {unknown: \"phone:+1 555\", on: emma-tablet}\n").contains(
                "step 1 (expect phone:+1 555 not known on emma-tablet): handle 'phone:+1 555'"))
        #expect(
            Self.error(steps + "  - contacts: {child: emma, on: alice-phone, remove: [\"\"], error: notFound}\n")
                .contains("handle '': '' is not KIND:VALUE"))
    }

    @Test func mistakesInTheFamilyStepsAreNamed() {
        let steps = Self.family + "steps:\n"
        #expect(
            Self.error(steps + "  - passcode: {child: emma, on: alice-phone, set: \"1234\", clear: true}\n")
                .contains("either set or clear: true"))
        #expect(
            Self.error(steps + "  - contacts: {child: emma, on: alice-phone}\n").contains("adds or removes a handle"))
        #expect(
            Self.error(steps + "  - contacts: {child: emma, on: emma-tablet, add: [pal]}\n").contains(
                "is a child's device"))
        #expect(
            Self.error(steps + "  - approveInPerson: {question: q, on: emma-tablet, passcode: \"1\"}\n").contains(
                "no question 'q' was asked"))
        #expect(
            Self.error(
                steps
                    + "  - ask: {on: emma-tablet, as: q, handles: [pal]}\n  - withdraw: {question: q, on: alice-phone}\n"
            )
            .contains("'alice-phone' is not a child's device"))
        #expect(
            Self.error(steps + "  - ageSharing: {member: emma, on: alice-phone, setting: sometimes}\n").contains(
                "setting 'sometimes' is not always, ask or never"))
        #expect(
            Self.error(steps + "  - ageRequest: {on: emma-tablet, as: r, gates: [10, 13, 16, 18]}\n").contains(
                "1 to 3 gates"))
        #expect(
            Self.error(steps + "  - expect: {ageResponse: r, on: emma-tablet}\n").contains(
                "no age request 'r' was made"))
        #expect(
            Self.error(
                steps + "  - ageRequest: {on: emma-tablet, as: r, gates: [13]}\n"
                    + "  - expect: {ageResponse: r, on: emma-tablet, answer: maybe}\n"
            ).contains("declined or sharing"))
        #expect(
            Self.error(steps + "  - expect: {history: emma, on: alice-phone, entry: approved}\n").contains(
                "entry 'approved' is not one of"))
        #expect(
            Self.error(steps + "  - expect: {history: emma, on: emma-tablet}\n").contains("is a child's device"))
        #expect(
            Self.error(steps + "  - expect: {history: emma, on: alice-phone, question: q}\n").contains(
                "no question 'q' was asked"))
    }

    @Test func theFamilyStepsParseWithTheirSummaries() throws {
        let scenario = try Scenario(
            yaml: Self.family + """
                steps:
                  - contacts: {child: emma, on: alice-phone, add: [pal], addDowntime: ["phone:+15550100"], remove: [x]}
                  - passcode: {child: emma, on: alice-phone, clear: true}
                  - ageRequest: {on: emma-tablet, as: r, app: com.example.games, gates: [13, 16]}
                  - agePrompt: {app: com.example.games, on: emma-tablet, share: false}
                  - expect: {ageResponse: r, on: emma-tablet, answer: declined}
                """)
        #expect(
            scenario.steps.map(\.summary) == [
                "contacts of emma on alice-phone: +pal, +phone:+15550100 (downtime), -x",
                "clear the passcode of emma on alice-phone",
                "age range request r on emma-tablet (com.example.games): gates 13, 16",
                "decline the age prompt of com.example.games on emma-tablet",
                "expect age range answer to r on emma-tablet declined",
            ])
    }
}
