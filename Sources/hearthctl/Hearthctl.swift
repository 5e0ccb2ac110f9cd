import ArgumentParser

@main
struct Hearthctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract: "Hearth from the command line: device keys, a parent's questions, and a child's app.",
        subcommands: [Keygen.self, Parent.self, App.self, Child.self, Admin.self, Status.self])
}
