import ArgumentParser
import FamilyBroker

@main
struct FamilyBrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "family-broker",
        abstract: "Knows families, stores every question and answer, and routes them between devices.",
        discussion: BrokerArguments.discussion)

    // The settings' flags and nothing else: the test kit's hooks (a moved clock, a slow disk, a slow hash) are
    // family-broker-lab's, so this parser refuses them.
    @OptionGroup var broker: BrokerArguments

    func run() async throws {
        try await broker.run()
    }
}
