import HearthFleet
import Testing

/// Scenarios of several brokers: `brokers: N` runs them on PostgreSQL, and fault steps name `broker 1`…`broker N`.
@Suite("Scenario brokers")
struct ScenarioBrokersTests {
    static func scenario(brokers: Int?, steps: String) throws -> Scenario {
        try Scenario(
            yaml: ScenarioParsingTests.family + (brokers.map { "brokers: \($0)\n" } ?? "") + "steps:\n" + steps)
    }

    @Test func severalBrokersRunOnPostgresAndTheirFaultsNameThem() throws {
        let scenario = try Self.scenario(
            brokers: 3,
            steps: """
                  - crash: broker 2
                  - pause: broker 3
                  - resume: broker 3
                  - cut: broker 1
                  - restore: broker 1
                  - restart: broker 2
                """)
        let spec = try scenario.fleetSpec()
        #expect(spec.brokers == 3)
        #expect(spec.store == .postgres)
        #expect(scenario.steps.map(\.summary).first == "crash broker 2")
    }

    @Test(arguments: [
        (3, "  - crash: broker 4\n", "no broker 4: the scenario has 3 broker(s)"),
        (3, "  - crash: broker\n", "name one of the brokers: broker 1 to broker 3"),
        (1, "  - pause: broker 1\n", "no broker 1: the scenario has 1 broker(s)"),
        (17, "  - wait: 1s\n", "brokers: 17 is not from 1 to 16"),
    ])
    func aBrokerThatIsNotThereIsRefused(brokers: Int, steps: String, reason: String) {
        #expect(throws: ScenarioError.self) { try Self.scenario(brokers: brokers, steps: steps) }
        do {
            _ = try Self.scenario(brokers: brokers, steps: steps)
        } catch {
            #expect("\(error)".contains(reason), "\(error)")
        }
    }

    @Test func oneBrokerStaysOnSQLite() throws {
        let spec = try Self.scenario(brokers: nil, steps: "  - crash: broker\n").fleetSpec()
        #expect(spec.brokers == 1)
        #expect(spec.store == .sqlite)
    }
}
