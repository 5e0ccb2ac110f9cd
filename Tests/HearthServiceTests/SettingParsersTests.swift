import HearthService
import Logging
import Testing

@Suite struct SettingParsersTests {
    @Test func endpoints() throws {
        #expect(try SettingParsers.endpoint("tcp://127.0.0.1:0") == "tcp://127.0.0.1:0")
        #expect(try SettingParsers.endpoint("tcp://*:7701") == "tcp://*:7701")
        #expect(try SettingParsers.endpoint("ipc:///run/hearth/broker") == "ipc:///run/hearth/broker")
        for bad in ["127.0.0.1:7701", "tcp://host", "tcp://host:99999", "tcp://:1", "ipc://", "udp://x:1"] {
            #expect(throws: SettingProblem.self, "\(bad)") { try SettingParsers.endpoint(bad) }
        }
    }

    @Test func seconds() throws {
        let parse = SettingParsers.seconds(in: 0.05...3600)
        #expect(try parse("0.5") == .milliseconds(500))
        #expect(try parse("2") == .seconds(2))
        for bad in ["0", "-1", "nan", "inf", "two", "3601"] {
            #expect(throws: SettingProblem.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test func listenAddresses() throws {
        #expect(try SettingParsers.listenAddress("off") == nil)
        #expect(try SettingParsers.listenAddress("") == nil)
        #expect(try SettingParsers.listenAddress("127.0.0.1:9701") == ListenAddress(host: "127.0.0.1", port: 9701))
        #expect(try SettingParsers.listenAddress("localhost:0") == ListenAddress(host: "127.0.0.1", port: 0))
        for bad in ["9701", "example.com:80", "127.0.0.1:http", "1.2.3:80", "300.0.0.1:1", "[::1]:80"] {
            #expect(throws: SettingProblem.self, "\(bad)") { try SettingParsers.listenAddress(bad) }
        }
    }

    @Test func logLevels() throws {
        #expect(try SettingParsers.logLevel("DEBUG") == .debug)
        #expect(throws: SettingProblem.self) { try SettingParsers.logLevel("loud") }
    }
}
