import Foundation
import HearthService
import Testing

@testable import DeviceRuntime

/// The device setting `brokers`: a comma-separated list of ready files and `INGRESS EGRESS KEYFILE` triples.
struct BrokerListEntryTests {
    @Test func readsReadyFilesAndTriplesInOrder() throws {
        let entries = try BrokerListEntry.parseList(
            " /run/b1/broker.ready.json ,tcp://b2:7701  tcp://b2:7702 /etc/hearth/b2.pub,/run/b3.json")
        #expect(
            entries == [
                .readyFile("/run/b1/broker.ready.json"),
                .endpoints(ingress: "tcp://b2:7701", egress: "tcp://b2:7702", keyFile: "/etc/hearth/b2.pub"),
                .readyFile("/run/b3.json"),
            ])
    }

    @Test(arguments: [
        ("", "names no broker"),
        (" , ", "names no broker"),
        ("/a.json,", "entry 2 '': is empty"),
        ("tcp://b:1 tcp://b:2", "entry 1 'tcp://b:1 tcp://b:2': expected a ready file, or INGRESS EGRESS KEYFILE"),
        ("b:1 tcp://b:2 k.pub", "entry 1 'b:1 tcp://b:2 k.pub': 'b:1' is not a ZeroMQ endpoint"),
        ("tcp://b:1 tcp://b:x k.pub", "entry 1 'tcp://b:1 tcp://b:x k.pub': 'tcp://b:x': port 'x' is not a number"),
    ])
    func refusesABadListNamingTheEntry(text: String, reason: String) {
        #expect {
            try BrokerListEntry.parseList(text)
        } throws: { error in
            (error as? SettingProblem)?.reason.hasPrefix(reason) == true
        }
    }

    @Test func resolvesAReadyFileAndAKeyFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("brokers-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ready = #"{"ingress":"tcp://127.0.0.1:1","egress":"tcp://127.0.0.1:2","publicKey":"KEY","pid":1}"#
        try ready.write(toFile: directory + "/ready.json", atomically: true, encoding: .utf8)
        let address = try BrokerListEntry.readyFile(directory + "/ready.json").resolve()
        #expect(address == BrokerAddress(ingress: "tcp://127.0.0.1:1", egress: "tcp://127.0.0.1:2", publicKey: "KEY"))
        #expect {
            try BrokerListEntry.readyFile(directory + "/missing.json").resolve()
        } throws: { error in
            (error as? SettingProblem)?.reason.contains("cannot read the broker's ready file") == true
        }
        #expect {
            try BrokerListEntry.endpoints(ingress: "tcp://a:1", egress: "tcp://a:2", keyFile: directory + "/no.pub")
                .resolve()
        } throws: { error in error is SettingProblem }
    }
}
