import ArgumentParser
import FamilyFileYAML
import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Operate a running family-broker through its admin socket (<broker state>/admin.sock, owner only).",
        subcommands: [
            Enroll.self, Revoke.self, AddMember.self, RemoveMember.self, SetRole.self, SetAgeAssurance.self,
            Reload.self, Show.self,
        ])

    struct SocketOption: ParsableArguments {
        @Option(
            help: "The broker's state directory (its admin socket is admin.sock there); or set HEARTH_BROKER_STATE.")
        var brokerState = ProcessInfo.processInfo.environment["HEARTH_BROKER_STATE"] ?? ".hearth/broker"

        func send(_ request: AdminRequest) async throws -> AdminResult {
            let json = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
            let reply = try await DaemonSocket.request(
                .adminRequest(json), daemon: "family-broker", path: brokerState + "/admin.sock")
            guard case .adminResult(let text) = reply else {
                throw CommandFailure("family-broker gave an unexpected reply")
            }
            return try JSONDecoder().decode(AdminResult.self, from: Data(text.utf8))
        }

        func run(_ request: AdminRequest) async throws {
            let result = try await send(request)
            print(result.summary)
            if !result.disconnectedDevices.isEmpty {
                print(
                    "Closed every connection so that \(result.disconnectedDevices.joined(separator: ", ")) is cut off; the others reconnect."
                )
            }
        }
    }

    struct Enroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enrol a device's public key for a member.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The member id.") var member: String
        @Argument(help: "The new device id.") var device: String
        @Option(help: "The device's public key file (.pub, from `hearthctl keygen`).") var keyFile: String

        func run() async throws {
            // A secret key enrolled as a public one would be shown by `admin show` and copied into family files.
            let key: String
            do {
                key = try KeyFiles.loadPublic(keyFile)
            } catch let failure as KeyFiles.Failure {
                throw CommandFailure(failure.description)
            }
            try await options.run(AdminRequest(.enroll, member: member, device: device, publicKey: key))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its key is refused and its connections are closed.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The device id.") var device: String
        func run() async throws { try await options.run(AdminRequest(.revoke, device: device)) }
    }

    struct AddMember: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-member", abstract: "Add a member to a family (or to no family).")
        @OptionGroup var options: SocketOption
        @Argument(help: "The new member id.") var member: String
        @Option(help: "The family id; omit for a member in no family.") var family: String?
        @Option(help: "organizer, guardian, adult or child.") var role: String
        @Option(help: "YYYY-MM-DD.") var birthDate: String?
        @Option(help: "ISO 3166 region, e.g. US or US-AL.") var region: String?
        @Option(help: "IANA time zone, e.g. Europe/Paris.") var timeZone: String?
        @Option(help: "Display name.") var name: String?
        @Option(
            help: ArgumentHelp(
                "How the member's age was established, as apps receive it (Apple's AgeRangeDeclaration).",
                discussion: "One of \(AgeDeclaration.allCases.map(\.name).joined(separator: ", ")); omit to derive "
                    + "selfDeclared or guardianDeclared from the age and family."))
        var ageAssurance: String?

        func validate() throws {
            // Checked here too, so that a mistyped name is a usage mistake that names the option and the choices.
            if let ageAssurance, AgeDeclaration(name: ageAssurance) == nil {
                let known = AgeDeclaration.allCases.map(\.name).joined(separator: ", ")
                throw ValidationError("--age-assurance '\(ageAssurance)' is not one of \(known)")
            }
        }

        func run() async throws {
            let entry = FamilyFile.Member(
                id: member, name: name, role: role, birthDate: birthDate, region: region, timeZone: timeZone,
                devices: [], ageAssurance: ageAssurance)
            try await options.run(AdminRequest(.addMember, family: family, entry: entry))
        }
    }

    struct RemoveMember: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-member",
            abstract: "Remove a member and their devices; a child's pending questions get the default response.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The member id.") var member: String
        func run() async throws { try await options.run(AdminRequest(.removeMember, member: member)) }
    }

    struct SetRole: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-role",
            abstract: "Designate or undesignate a guardian (organizer, guardian, adult, child).")
        @OptionGroup var options: SocketOption
        @Argument(help: "The member id.") var member: String
        @Argument(help: "The new role.") var role: String
        func run() async throws { try await options.run(AdminRequest(.setRole, member: member, role: role)) }
    }

    struct SetAgeAssurance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-age-assurance",
            abstract: "Record how a member's age was established, as apps receive it (Apple's AgeRangeDeclaration).",
            discussion: "ASSURANCE is one of \(AgeDeclaration.allCases.map(\.name).joined(separator: ", ")), or "
                + "\(AdminRequest.derivedAssurance) to go back to who declared it (selfDeclared or guardianDeclared).")
        @OptionGroup var options: SocketOption
        @Argument(help: "The member id.") var member: String
        @Argument(help: "How the age was established, or \(AdminRequest.derivedAssurance).") var assurance: String

        func validate() throws {
            // Checked here too, so that a mistyped name is a usage mistake that lists the choices.
            if assurance != AdminRequest.derivedAssurance, AgeDeclaration(name: assurance) == nil {
                let known = AgeDeclaration.allCases.map(\.name).joined(separator: ", ")
                throw ValidationError(
                    "'\(assurance)' is not one of \(known), or \(AdminRequest.derivedAssurance)")
            }
        }

        func run() async throws {
            try await options.run(AdminRequest(.setAgeAssurance, member: member, ageAssurance: assurance))
        }
    }

    struct Reload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-read the family file and apply the families whose entry changed.")
        @OptionGroup var options: SocketOption
        func run() async throws { try await options.run(AdminRequest(.reload)) }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the directory as the broker stores it (YAML) and the revoked keys.")
        @OptionGroup var options: SocketOption
        func run() async throws {
            let result = try await options.send(AdminRequest(.show))
            if let file = result.directory { print(try file.yaml(), terminator: "") }
            print("revokedKeys: \(result.revokedKeys ?? [])")
        }
    }
}
