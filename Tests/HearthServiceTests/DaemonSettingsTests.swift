import Foundation
import HearthCore
import HearthService
import Testing

@Suite struct DaemonSettingsTests {
    static let port = SettingKey("listenPort", default: "80", help: "a port")
    static let name = SettingKey("name", default: "none", help: "a name")
    static let keys = [port, name]

    static func settings(
        flags: [String: String?] = [:], environment: [String: String] = [:]
    ) async throws -> DaemonSettings {
        try await DaemonSettings(
            daemon: "testd", environmentPrefix: "HEARTH_TESTD", keys: keys, flags: flags, environment: environment)
    }

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-settings-\(UUID().uuidString).yaml"
        ).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func refusal(_ body: () async throws -> Void) async -> ConfigurationError? {
        do {
            try await body()
            return nil
        } catch let error as ConfigurationError {
            return error
        } catch {
            Issue.record("expected a ConfigurationError, got \(error)")
            return nil
        }
    }

    @Test func flagBeatsEnvironmentBeatsFileBeatsDefault() async throws {
        let path = try Self.file("listenPort: 3\nname: from-file\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let env = ["HEARTH_TESTD_LISTEN_PORT": "2", "HEARTH_TESTD_CONFIG": path]
        let all = try await Self.settings(flags: ["listenPort": "1"], environment: env)
        #expect(try all.value(Self.port) == .init(text: "1", source: "--listen-port"))
        let noFlag = try await Self.settings(environment: env)
        #expect(try noFlag.value(Self.port) == .init(text: "2", source: "HEARTH_TESTD_LISTEN_PORT"))
        #expect(try noFlag.value(Self.name) == .init(text: "from-file", source: path))
        let fileOnly = try await Self.settings(flags: ["config": path])
        #expect(try fileOnly.get(Self.port, default: 80, SettingParsers.integer(in: 1...65535)) == 3)
        let none = try await Self.settings()
        #expect(try none.get(Self.port, default: 80, SettingParsers.integer(in: 1...65535)) == 80)
        #expect(try none.value(Self.name) == nil)
    }

    /// Our documented variable names are the ones swift-configuration's EnvironmentVariablesProvider reads.
    @Test func documentedVariableNamesAreTheOnesRead() async throws {
        for key in Self.keys {
            let settings = try await Self.settings(environment: [key.environmentVariable(prefix: "HEARTH_TESTD"): "7"])
            #expect(try settings.value(key)?.text == "7", "\(key.environmentVariable(prefix: "HEARTH_TESTD"))")
        }
    }

    @Test func badValueIsRefusedNamingSourceKeyAndReason() async throws {
        let settings = try await Self.settings(environment: ["HEARTH_TESTD_LISTEN_PORT": "eighty"])
        let error = await Self.refusal {
            _ = try settings.get(Self.port, default: 80, SettingParsers.integer(in: 1...65535))
        }
        #expect(
            error
                == ConfigurationError(
                    source: "HEARTH_TESTD_LISTEN_PORT", key: "listenPort", reason: "'eighty' is not a whole number"))
        let outOfRange = try await Self.settings(flags: ["listenPort": "70000"])
        let rangeError = await Self.refusal {
            _ = try outOfRange.get(Self.port, default: 80, SettingParsers.integer(in: 1...65535))
        }
        #expect(rangeError?.source == "--listen-port")
        #expect(rangeError?.reason.contains("out of range") == true)
    }

    @Test func unknownFileKeyIsRefused() async throws {
        let path = try Self.file("listenPrt: 3\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = await Self.refusal { _ = try await Self.settings(flags: ["config": path]) }
        #expect(error?.source == path)
        #expect(error?.key == "listenPrt")
        #expect(error?.reason.hasPrefix("unknown key") == true)
    }

    @Test func unknownVariableUnderThePrefixIsRefused() async throws {
        let error = await Self.refusal {
            _ = try await Self.settings(environment: ["HEARTH_TESTD_LISTEN_PROT": "1", "HEARTH_OTHER": "x"])
        }
        #expect(error?.key == "HEARTH_TESTD_LISTEN_PROT")
    }

    @Test func fileProblemsAreRefused() async throws {
        let missing = await Self.refusal { _ = try await Self.settings(flags: ["config": "/nonexistent/hearth.yaml"]) }
        #expect(missing?.key == "config")
        #expect(missing?.source == "--config")
        let list = try Self.file("- a\n- b\n")
        defer { try? FileManager.default.removeItem(atPath: list) }
        #expect(
            await Self.refusal { _ = try await Self.settings(flags: ["config": list]) }?.reason
                == "must be a mapping of keys to values")
        let nested = try Self.file("listenPort: [1, 2]\n")
        defer { try? FileManager.default.removeItem(atPath: nested) }
        let settings = try await Self.settings(flags: ["config": nested])
        let error = await Self.refusal { _ = try settings.value(Self.port) }
        #expect(error?.key == "listenPort")
        #expect(error?.source == nested)
        let broken = try Self.file("listenPort: [1, 2\n")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        #expect(
            await Self.refusal { _ = try await Self.settings(flags: ["config": broken]) }?.reason.hasPrefix(
                "not valid YAML") == true)
    }

    @Test func requiredKeyNamesEveryWayToSetIt() async throws {
        let settings = try await Self.settings()
        let error = await Self.refusal { _ = try settings.required(Self.name, SettingParsers.path) }
        #expect(error?.key == "name")
        #expect(error?.reason.contains("--name") == true)
        #expect(error?.reason.contains("HEARTH_TESTD_NAME") == true)
    }
}
