import ArgumentParser

@main
struct Hearthctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract: "Hearth from the command line: device keys, a parent's questions, a child's app, and fleets of devices.",
        subcommands: [Keygen.self, Parent.self, App.self, Child.self, Admin.self, FleetCommand.self])
}
