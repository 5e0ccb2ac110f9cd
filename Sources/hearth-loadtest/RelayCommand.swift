import ArgumentParser
import HearthLoad

/// The raw libzmq relay, run by `cycle --baseline` as a process of its own.
struct RelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay", abstract: "A minimal stateless ROUTER→PUB relay on libzmq's C API (the baseline).",
        shouldDisplay: false)

    @Option(help: "ROUTER endpoint.") var ingress = "tcp://127.0.0.1:0"
    @Option(help: "PUB endpoint.") var egress = "tcp://127.0.0.1:0"
    @Option(help: "Ready file to write (the broker's format).") var ready: String
    @Flag(inversion: .prefixedNo, help: "CURVE servers (no ZAP: any key is let in).") var curve = true

    func run() throws {
        try RawRelay.run(ingress: ingress, egress: egress, readyFile: ready, curve: curve)
    }
}
