import Foundation
import HearthCore
import HearthService
import Logging
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Each setting is declared once (`BrokerSettings.all`): its flag, its key list entry and its documentation follow.
@Suite struct BrokerSettingsTests {
    @Test func flagsAreReadByTheKeyTheyName() throws {
        let flags = try BrokerSettings.flags(from: ["--subscriber-hwm", "5", "--keys-dir=/tmp", "--config", "b.yaml"])
        #expect(flags == ["subscriberHwm": "5", "keysDir": "/tmp", "config": "b.yaml"])
    }

    @Test func anUnknownFlagOrAMissingValueIsRefused() {
        #expect(throws: ConfigurationError.self) { try BrokerSettings.flags(from: ["--subscriber-HWM", "5"]) }
        #expect(throws: ConfigurationError.self) { try BrokerSettings.flags(from: ["--heartbeat"]) }
        #expect(throws: ConfigurationError.self) { try BrokerSettings.flags(from: ["stray"]) }
    }

    @Test func everyDeclaredSettingIsReadIntoTheOptions() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let families = temp.url.appendingPathComponent("families.yaml").path
        try "families: []\n".write(toFile: families, atomically: true, encoding: .utf8)
        let arguments = [
            "--families", families, "--state", temp.url.path, "--ingress", "tcp://127.0.0.1:9", "--egress",
            "tcp://127.0.0.1:8",
            "--heartbeat", "3", "--subscriber-hwm", "7", "--max-family-members", "9", "--ask-limit", "2/60",
            "--device-rate", "4",
            "--age-prompt-timeout", "11", "--log-level", "error", "--shutdown-timeout", "6", "--keys-dir",
            temp.url.path,
        ]
        let settings = try BrokerSettings(
            try await DaemonSettings(
                daemon: "family-broker", environmentPrefix: BrokerSettings.environmentPrefix, keys: BrokerSettings.keys,
                flags: try BrokerSettings.flags(from: arguments), environment: [:]))
        let options = settings.options
        #expect(options.ingress == "tcp://127.0.0.1:9" && options.egress == "tcp://127.0.0.1:8")
        #expect(
            options.familyFile == families && options.stateDirectory == temp.url.path
                && options.keysDirectory == temp.url.path)
        #expect(options.secretKeyFile == temp.url.path + "/broker.key", "keyFile's default follows state")
        #expect(
            options.heartbeatInterval == .seconds(3) && options.subscriberHighWaterMark == 7
                && options.maxFamilyMembers == 9)
        #expect(options.askLimit == ChildDefaults.AskLimit(count: 2, perSeconds: 60))
        #expect(options.deviceCommandRate == 4 && options.deviceCommandBurst == 20)
        #expect(options.agePromptTimeout == .seconds(11))
        #expect(settings.logLevel == .error && settings.shutdownTimeout == .seconds(6) && settings.metrics == nil)
        #expect(
            Set(settings.sources.keys)
                == Set(
                    arguments.filter { $0.hasPrefix("--") }.map { flag in
                        BrokerSettings.keys.first { $0.flag == flag }!.name
                    }))
    }

    /// docs/CONFIGURATION.md's family-broker table lists every key, in the declared order, with its flag.
    @Test func theDocumentationListsEveryKey() throws {
        let root = RepositoryRoot.url
        let text = try String(contentsOf: root.appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "### family-broker").dropFirst().first)
        let table = section.components(separatedBy: "\n\n").first { $0.contains("| key (file) |") } ?? ""
        let documented = table.split(separator: "\n").dropFirst(3).map { row in
            row.split(separator: "|").first.map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            } ?? ""
        }
        #expect(documented == BrokerSettings.keys.map(\.name))
        for key in BrokerSettings.keys { #expect(table.contains("`\(key.flag)`"), "\(key.name)'s flag") }
    }

    /// A broker built without the PostgreSQL trait refuses a postgres:// store by name (the settings make it a
    /// `ConfigurationError`, exit 78) before asking for its password, and still refuses a password in the URL first.
    @Test func aBuildWithoutThePostgreSQLTraitRefusesAPostgresStore() throws {
        let url = "postgres://hearth@db.example:5433/family"
        let refused = #expect(throws: PostgreSQLNotBuilt.self) {
            try StoreLocation.parse(url, passwordFile: "/nonexistent/password", postgreSQL: false)
        }
        #expect(refused?.url == PostgresURL(user: "hearth", host: "db.example", port: 5433, database: "family"))
        #expect(refused?.description.contains("built without the PostgreSQL trait") == true)
        #expect(refused?.description.contains("postgres://hearth@db.example:5433/family") == true)
        #expect(throws: SettingProblem.self) {
            try StoreLocation.parse("postgres://hearth:secret@db/family", passwordFile: nil, postgreSQL: false)
        }
        #expect(try StoreLocation.parse("sqlite", passwordFile: nil, postgreSQL: false) == .sqlite)
        #expect(StoreLocation.postgreSQLBuilt, "the tests build the package's default traits")
    }
}
