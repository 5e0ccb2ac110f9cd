import DeviceRuntime
import FamilyBroker
import Foundation
import HearthFleet
import HearthService
import HearthTransport
import Testing

/// Invalid configuration is refused at start-up by the real executables: exit 78 (EX_CONFIG), naming the key.
@Suite("Configuration refusal", .tags(.fleet))
struct ConfigurationRefusalTests {
    /// A directory with a valid family file and its keys, so only the setting under test is wrong.
    static func brokerFixture() throws -> String {
        let dir = try ExecutableRun.temporaryDirectory()
        let yaml = """
            families:
              - id: f
                members:
                  - {id: alice, role: organizer, devices: [{id: alice-phone, keyFile: alice-phone.pub}]}
            """
        try yaml.write(toFile: dir + "/families.yaml", atomically: true, encoding: .utf8)
        _ = try KeyFiles.generate(at: dir + "/alice-phone")
        return dir
    }

    static func broker(
        _ dir: String, _ extra: [String], environment: [String: String] = [:]
    ) async throws -> (Int32, String) {
        try await ExecutableRun.run(
            "family-broker",
            [
                "--state", dir + "/state", "--families", dir + "/families.yaml", "--ingress", "tcp://127.0.0.1:0",
                "--egress", "tcp://127.0.0.1:0",
            ] + extra,
            environment: environment)
    }

    @Test func badFlagValueIsRefusedNamingTheKey() async throws {
        let dir = try Self.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await Self.broker(dir, ["--subscriber-hwm", "lots"])
        #expect(status == 78)
        #expect(output.contains("--subscriber-hwm: subscriberHwm: 'lots' is not a whole number"), "\(output)")
        #expect(
            !FileManager.default.fileExists(atPath: dir + "/state/broker.sqlite"),
            "nothing is created before the configuration is accepted")
    }

    /// The test kit's hooks (a moved clock, a slow disk, a slow hash) are family-broker-lab's: the shipped broker's
    /// parser refuses each as an unknown flag before it creates anything, and its help does not name them.
    @Test(arguments: ["--clock-file", "--commit-delay-file", "--passcode-cost"])
    func aTestHookIsNotAFlagOfTheShippedBroker(_ hook: String) async throws {
        let dir = try Self.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await Self.broker(dir, [hook, "18"])
        #expect(status == 78)
        #expect(output.contains("\(hook): unknown flag"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/state/broker.sqlite"))
        let (helpStatus, help) = try await ExecutableRun.run("family-broker", ["--help"])
        #expect(helpStatus == 0)
        #expect(help.contains("--subscriber-hwm") && !help.contains(hook), "\(help)")
        let (_, labHelp) = try await ExecutableRun.run("family-broker-lab", ["--help"])
        #expect(labHelp.contains(hook) && labHelp.contains("--subscriber-hwm"), "\(labHelp)")
    }

    @Test func badEnvironmentValueIsRefusedNamingTheVariable() async throws {
        let dir = try Self.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await Self.broker(dir, [], environment: ["HEARTH_BROKER_HEARTBEAT": "0"])
        #expect(status == 78)
        #expect(output.contains("HEARTH_BROKER_HEARTBEAT: heartbeat: 0 seconds is out of range"), "\(output)")
    }

    @Test func misspeltKeyInTheConfigFileIsRefused() async throws {
        let dir = try Self.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "heartbeat: 1\nsubscriberHWM: 10\n".write(toFile: dir + "/broker.yaml", atomically: true, encoding: .utf8)
        let (status, output) = try await Self.broker(dir, ["--config", dir + "/broker.yaml"])
        #expect(status == 78)
        #expect(output.contains("broker.yaml: subscriberHWM: unknown key"), "\(output)")
    }

    @Test func badEndpointInTheConfigFileIsRefused() async throws {
        let dir = try Self.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "metrics: 127.0.0.1:http\n".write(toFile: dir + "/broker.yaml", atomically: true, encoding: .utf8)
        let (status, output) = try await ExecutableRun.run(
            "family-broker", ["--state", dir + "/state", "--families", dir + "/families.yaml"],
            environment: ["HEARTH_BROKER_CONFIG": dir + "/broker.yaml"])
        #expect(status == 78)
        #expect(output.contains("broker.yaml: metrics: '127.0.0.1:http': port is not a number"), "\(output)")
    }

    @Test func deviceWithoutAKeyFileIsRefusedNamingEveryWayToSetIt() async throws {
        let dir = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await ExecutableRun.run("child-device", ["--state", dir + "/device"])
        #expect(status == 78)
        #expect(
            output.contains(
                "keyFile: is required: give --key-file, HEARTH_CHILD_DEVICE_KEY_FILE or 'keyFile' in the config file"),
            "\(output)")
    }

    @Test func deviceWithAnUnreadableBrokerKeyIsRefused() async throws {
        let dir = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await ExecutableRun.run(
            "parent-device", ["--key-file", dir + "/p.key", "--state", dir + "/device"],
            environment: ["HEARTH_PARENT_DEVICE_BROKER_KEY_FILE": dir + "/missing.pub"])
        #expect(status == 78)
        #expect(output.contains("HEARTH_PARENT_DEVICE_BROKER_KEY_FILE: brokerKeyFile:"), "\(output)")
    }

    @Test func deviceWithAnUnreadableBrokerOfItsListIsRefusedNamingTheEntry() async throws {
        let dir = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try KeyFiles.generate(at: dir + "/b1")
        let list = "tcp://127.0.0.1:1 tcp://127.0.0.1:2 \(dir)/b1.pub, \(dir)/b2.ready.json"
        let (status, output) = try await ExecutableRun.run(
            "child-device", ["--key-file", dir + "/c.key", "--state", dir + "/device", "--brokers", list])
        #expect(status == 78)
        #expect(
            output.contains("--brokers: brokers: entry 2: cannot read the broker's ready file '\(dir)/b2.ready.json'"),
            "\(output)")
    }

    /// A password anywhere in the store setting is refused as one in the URL's authority is, and no error (which goes
    /// to the journal) shows it, nor the URL's query.
    @Test func aStorePasswordInTheQueryOrKeywordFormIsRefusedAndNeverShown() async throws {
        let dir = try Self.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let secret = "hunter2-\(UUID().uuidString.prefix(6))"
        let refusal = "store URL must not hold a password (it would show on command lines and in logs)"
        for store in [
            "postgres://hearth:\(secret)@127.0.0.1:1/hearth", "postgres://hearth@127.0.0.1:1/hearth?password=\(secret)",
            "postgresql://hearth@127.0.0.1:1/hearth?sslmode=disable&PASSWORD=\(secret)",
            "host=127.0.0.1 port=1 user=hearth password=\(secret) dbname=hearth",
            "host=127.0.0.1 user=hearth password='\(secret) x' dbname=hearth",
        ] {
            let (status, output) = try await Self.broker(dir, ["--store", store])
            #expect(status == 78, "\(store)")
            #expect(output.contains("--store: store: \(refusal)"), "\(output)")
            #expect(!output.contains(secret), "\(output)")
        }
        // Other options of the query are not read, and not shown either: they may hold what libpq reads as secrets.
        let (status, output) = try await Self.broker(dir, ["--store", "postgres://hearth@db/h?sslkey=\(secret)"])
        #expect(status == 78)
        #expect(output.contains("store \"postgres://hearth@db/h?REDACTED\" has options the broker does not read"))
        #expect(!output.contains(secret), "\(output)")
    }

    /// A password file others may read is refused, as ssh refuses such a private key and libpq such a `.pgpass`.
    @Test func aStorePasswordFileOthersMayReadIsRefused() async throws {
        let dir = try Self.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/store-password"
        try "hunter2\n".write(toFile: file, atomically: true, encoding: .utf8)
        for mode: mode_t in [0o644, 0o640, 0o604] {
            chmod(file, mode)
            let (status, output) = try await Self.broker(
                dir, ["--store", "postgres://hearth@127.0.0.1:1/hearth", "--store-password-file", file])
            #expect(status == 78)
            #expect(
                output.contains(
                    "storePasswordFile '\(file)' may be read by other users (mode \(String(mode, radix: 8))): "
                        + "run `chmod 600 \(file)`"), "\(output)")
            #expect(!output.contains("hunter2"), "\(output)")
        }
    }

    /// Every key is documented, with its flag, variable and default, in docs/CONFIGURATION.md and the config files.
    @Test func everyKeyIsDocumented() throws {
        let root = RepositoryRoot.url
        let docs = try String(contentsOf: root.appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        let daemons: [(String, String, [SettingKey])] = [
            ("broker.yaml", BrokerSettings.environmentPrefix, BrokerSettings.keys),
            ("child-device.yaml", DeviceSettings.environmentPrefix(daemon: "child-device"), DeviceSettings.keys),
            ("parent-device.yaml", DeviceSettings.environmentPrefix(daemon: "parent-device"), DeviceSettings.keys),
        ]
        for (file, prefix, keys) in daemons {
            let config = try String(contentsOf: root.appendingPathComponent("config/" + file), encoding: .utf8)
            for key in keys {
                #expect(
                    docs.contains("`\(key.environmentVariable(prefix: prefix))`"), "\(key.name) of \(file): variable")
                #expect(docs.contains("`\(key.flag)`"), "\(key.name): flag")
                #expect(docs.contains("`\(key.name)`"), "\(key.name): key")
                #expect(config.contains("\(key.name):"), "\(key.name) in config/\(file)")
            }
        }
    }
}
