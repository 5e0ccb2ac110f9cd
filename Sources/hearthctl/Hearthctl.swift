import ArgumentParser

@main
struct Hearthctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract: "Hearth from the command line: device keys, a parent's questions, a child's app, age ranges, and the broker's admin.",
        subcommands: [Keygen.self, Parent.self, App.self, Child.self, Admin.self, Age.self])
}
