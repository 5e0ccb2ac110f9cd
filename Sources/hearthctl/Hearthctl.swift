import ArgumentParser

@main
struct Hearthctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract:
            "Hearth from the command line: device keys, a parent's questions and limits, a child's app, age ranges, status, the broker's admin.",
        subcommands: [Keygen.self, Parent.self, App.self, Child.self, Age.self, Admin.self, Status.self])
}
