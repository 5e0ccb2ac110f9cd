import ArgumentParser
import FamilyBroker
import Foundation
import Logging
import ServiceLifecycle

@main
struct FamilyBrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "family-broker",
        abstract: "Knows families, stores every question and answer, and routes them between devices.")

    @Option(help: "ROUTER endpoint for device commands (port 0: pick a free one, see the ready file).")
    var ingress = "tcp://127.0.0.1:7701"

    @Option(help: "XPUB endpoint for device events.")
    var egress = "tcp://127.0.0.1:7702"

    @Option(help: "Directory for the database, the broker key (if --key-file is not given) and the ready file.")
    var state = ".hearth/broker"

    @Option(help: "The family file (YAML): families, members, devices.")
    var families = "config/demo-family.yaml"

    @Option(help: "Directory for relative keyFile entries of the family file (default: the family file's directory).")
    var keysDir: String?

    @Option(help: "The broker's CURVE secret key file; made on first run if missing, with its .pub beside it.")
    var keyFile: String?

    @Option(help: "Seconds between heartbeats to each subscribed member.")
    var heartbeat: Double = 2

    @Option(help: "Events queued per subscriber before the broker drops them for it (it then catches up by syncing).")
    var subscriberHWM: Int32 = 10_000

    @Option(help: "Age of majority per region (YAML, like config/regions.yaml); default: the compiled-in table.")
    var regions: String?

    @Option(help: "New children's defaults, emergency numbers and ask limit (YAML, like config/child-defaults.yaml); default: compiled in.")
    var childDefaults: String?

    @Option(help: "Most members per family.")
    var maxFamilyMembers = 6

    @Option(help: "Questions one child may ask per period, as COUNT/SECONDS (overrides the child defaults' askLimit), e.g. 30/3600.")
    var askLimit: String?

    @Option(help: "Commands per second each device may send, sustained (bursts of 5x are allowed).")
    var deviceRate: Double = 200
    @Option(help: "Seconds a Declared Age Range Ask First prompt waits for the user; then it counts as declined.")
    var agePromptTimeout: Double = 60

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: .hidden)  // tests only: "now" is the real time plus the seconds in this file (OffsetClock)
    var clockFile: String?

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "family-broker")
        var options = BrokerOptions(
            ingress: ingress, egress: egress, stateDirectory: state, familyFile: families, keysDirectory: keysDir,
            secretKeyFile: keyFile, heartbeatInterval: .milliseconds(Int(heartbeat * 1000)),
            subscriberHighWaterMark: subscriberHWM)
        options.regionsFile = regions
        options.childDefaultsFile = childDefaults
        options.maxFamilyMembers = maxFamilyMembers
        options.deviceCommandRate = deviceRate
        options.deviceCommandBurst = deviceRate * 5
        if let askLimit {
            let parts = askLimit.split(separator: "/")
            guard parts.count == 2, let count = Int(parts[0]), let seconds = Int(parts[1]), count > 0, seconds > 0 else {
                logger.critical("invalid configuration: --ask-limit: '\(askLimit)' is not COUNT/SECONDS with both positive")
                throw ExitCode(78)
            }
            options.askLimit = ChildDefaults.AskLimit(count: count, perSeconds: seconds)
        }
        guard agePromptTimeout > 0, agePromptTimeout <= 86_400 else {
            throw ValidationError("--age-prompt-timeout must be more than 0 and at most 86400 seconds")
        }
        options.agePromptTimeout = .milliseconds(Int(agePromptTimeout * 1000))
        let service = FamilyBrokerService(options: options, logger: logger, clock: clockFile.map { OffsetClock(path: $0).now } ?? Date.init)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let error as ConfigurationError {
            logger.critical("invalid configuration: \(error)")
            throw ExitCode(78)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
