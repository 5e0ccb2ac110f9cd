import DeclaredAgeRange
import Foundation
import HearthCore
import HearthFleet
import HearthService
import Testing

/// hearthctl as a person uses it, through the real binary against real daemons: what it prints it accepts back, a
/// failure is not mistaken for a typo, and every error says what to do.
@Suite("hearthctl as a person uses it", .serialized, .tags(.fleet))
struct HearthctlWordsTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .child("emma", devices: ["emma-tablet"]),
            ])
    ])

    static let nowhere = FileManager.default.temporaryDirectory.path + "/hearth-no-daemon-\(UUID().uuidString)"

    /// The printed question id of `app ask`'s output.
    static func askedID(_ output: String) throws -> UUID {
        let text = try #require(output.split(separator: " ").last, "\(output)")
        return try #require(UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines)), "\(output)")
    }

    /// A runtime failure is an error, not a usage mistake: no `Usage:` after it, exit status 1. A mistyped argument
    /// still gets the usage.
    @Test func aFailureIsNotShownAsAMistypedCommand() async throws {
        let down = try await hearthctl(["parent", "list", "--socket", Self.nowhere + "/parent-device.sock"])
        #expect(down.status == 1, "\(down)")
        #expect(down.output.contains("Error: parent-device is not running"), "\(down.output)")
        #expect(!down.output.contains("Usage:"), "\(down.output)")

        let mistyped = try await hearthctl(["age", "answer", "3f2a", "maybe", "--socket", Self.nowhere])
        #expect(mistyped.status != 0 && mistyped.output.contains("share or decline"), "\(mistyped.output)")
        #expect(mistyped.output.contains("Usage: hearthctl age answer"), "\(mistyped.output)")
    }

    /// A command sent to the other daemon's socket says which daemon answered and which one it needs, and how.
    @Test func theWrongDaemonIsNamedWithTheOneNeeded() async throws {
        try await Fleet.with(Self.family) { fleet in
            let child = fleet.socket(of: "emma-tablet")
            let parent = fleet.socket(of: "alice-phone")
            let list = try await hearthctl(["parent", "list", "--socket", child])
            #expect(list.status == 1, "\(list)")
            #expect(list.output.contains("child-device answered at \(child)"), "\(list.output)")
            #expect(list.output.contains("`hearthctl parent list` needs parent-device"), "\(list.output)")
            #expect(list.output.contains("--socket") && list.output.contains("parent-device.sock"), "\(list.output)")

            let ask = try await hearthctl(["app", "ask", "sam", "--socket", parent])
            #expect(ask.status == 1, "\(ask)")
            #expect(ask.output.contains("parent-device answered at \(parent)"), "\(ask.output)")
            #expect(ask.output.contains("`hearthctl app ask` needs child-device"), "\(ask.output)")

            let sharing = try await hearthctl(["age", "sharing", "emma", "always", "--socket", child])
            #expect(sharing.status == 1, "\(sharing)")
            #expect(sharing.output.contains("child-device answered at \(child)"), "\(sharing.output)")
            #expect(sharing.output.contains("needs parent-device"), "\(sharing.output)")
            #expect(sharing.output.contains("--socket"), "\(sharing.output)")
            let watch = try await hearthctl(["parent", "watch", "--count", "1", "--socket", child])
            #expect(watch.status == 1, "\(watch)")
            #expect(watch.output.contains("`hearthctl parent watch` needs parent-device"), "\(watch.output)")
            for run in [list, ask, sharing, watch] { #expect(!run.output.contains("Usage:"), "\(run.output)") }
        }
    }

    /// Both spellings of a kind are accepted (what `parent limits` prints can be removed as printed); a phone number
    /// not in E.164 form or an address that is not one is refused by value, and nothing changes.
    @Test func contactsAreAcceptedAsPrintedAndCheckedByKind() async throws {
        try await Fleet.with(Self.family) { fleet in
            let socket = ["--socket", fleet.socket(of: "alice-phone")]
            let added = try await hearthctl(
                ["parent", "contacts", "emma", "--add", "phone:+15551234567", "--add", "emailAddress:sam@example.com"]
                    + socket)
            #expect(added.status == 0, "\(added)")
            #expect(added.output.contains("phoneNumber:+15551234567"), "\(added.output)")
            #expect(added.output.contains("emailAddress:sam@example.com"), "\(added.output)")

            let removed = try await hearthctl(
                ["parent", "contacts", "emma", "--remove", "phoneNumber:+15551234567"] + socket)
            #expect(removed.status == 0, "\(removed)")
            #expect(!removed.output.contains("+15551234567"), "\(removed.output)")

            for (bad, words) in [
                ("phone:555-1234", "'555-1234' is not a phone number in E.164 form"),
                ("phoneNumber:+1 555 123 4567", "is not a phone number in E.164 form"),
                ("email:notanemail", "'notanemail' is not an email address"),
                ("email:sam@localhost", "'sam@localhost' is not an email address"),
                ("mobile:+15551234567", "'mobile' in 'mobile:+15551234567' is not a kind"),
            ] {
                let refused = try await hearthctl(["parent", "contacts", "emma", "--add", bad] + socket)
                #expect(refused.status != 0 && refused.output.contains(words), "\(bad): \(refused.output)")
            }
            let after = try await hearthctl(["parent", "limits", "emma"] + socket)
            #expect(after.output.contains("emailAddress:sam@example.com"), "\(after.output)")
            #expect(!after.output.contains("555-1234") && !after.output.contains("notanemail"), "\(after.output)")
        }
    }

    /// The help states both caps of a note or message; an over-long one is refused naming the option typed.
    @Test func aNoteOverItsBytesIsRefusedNamingTheOption() async throws {
        let family = String(repeating: "👨‍👩‍👧", count: 100)  // 100 characters, 1,800 bytes
        let ask = try await hearthctl(["app", "ask", "sam", "--note", family, "--socket", Self.nowhere])
        #expect(ask.status != 0, "\(ask)")
        #expect(ask.output.contains("--note: is 1800 bytes of UTF-8, at most 1024 allowed"), "\(ask.output)")
        #expect(!ask.output.contains("question.note"), "\(ask.output)")
        let decline = try await hearthctl(["parent", "decline", "3f2a", "--message", family, "--socket", Self.nowhere])
        #expect(decline.output.contains("--message: is 1800 bytes"), "\(decline.output)")

        for command in [["app", "ask"], ["parent", "approve"], ["parent", "decline"]] {
            let help = try await hearthctl(command + ["--help"])
            let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("at most 280 characters and 1024 bytes of UTF-8"), "\(command): \(help.output)")
        }
    }

    /// `admin add-member --age-assurance` records how the member's age was established, as the family file's
    /// `ageAssurance` does; a name that is not one of Apple's cases is a usage mistake naming the option and the
    /// choices, and adds nobody.
    @Test func aMembersAgeAssuranceIsSetByNameAndAWrongOneIsRefused() async throws {
        try await Fleet.with(Self.family) { fleet in
            let state = ["--broker-state", fleet.directory + "/broker"]
            let wrong = try await hearthctl(
                [
                    "admin", "add-member", "ben", "--family", "appleseed", "--role", "adult", "--birth-date",
                    "1990-01-01",
                    "--age-assurance", "passportChecked",
                ] + state)
            #expect(wrong.status != 0, "\(wrong)")
            #expect(
                wrong.output.contains("--age-assurance 'passportChecked' is not one of selfDeclared, guardianDeclared"),
                "\(wrong.output)")
            #expect(
                wrong.output.contains("governmentIDChecked") && wrong.output.contains("confirmed"), "\(wrong.output)")
            let before = try await hearthctl(["admin", "show"] + state)
            #expect(before.status == 0 && !before.output.contains("ben"), "\(before.output)")

            let added = try await hearthctl(
                [
                    "admin", "add-member", "ben", "--family", "appleseed", "--role", "adult", "--birth-date",
                    "1990-01-01",
                    "--age-assurance", "governmentIDChecked",
                ] + state)
            #expect(added.status == 0, "\(added.output)")
            let after = try await hearthctl(["admin", "show"] + state)
            #expect(after.output.contains("ageAssurance: governmentIDChecked"), "\(after.output)")
            let help = try await hearthctl(["admin", "add-member", "--help"])
            #expect(help.output.contains("--age-assurance"), "\(help.output)")
        }
    }

    /// `admin set-age-assurance` records how an existing member's age was established (an ID checked after she
    /// joined): her apps' next ranges carry it, and `derived` goes back to who declared it. A wrong name is a usage
    /// mistake listing the choices.
    @Test func anExistingMembersAgeAssuranceIsSetAndTheAppSeesIt() async throws {
        try await Fleet.with(Self.family) { fleet in
            let state = ["--broker-state", fleet.directory + "/broker"]
            let console = try await fleet.ageConsole(on: "alice-phone")
            try await console.setSharing(.always, of: "alice")
            await console.close()
            let service = fleet.ageRange("com.example.landmarks", on: "alice-phone")
            func declaration() async throws -> String {
                guard case .sharing(let range) = try await service.requestAgeRange(ageGates: 18) else { return "-" }
                return range.ageRangeDeclaration.map { "\($0)" } ?? "none"
            }
            #expect(try await declaration() == "selfDeclared")

            let wrong = try await hearthctl(["admin", "set-age-assurance", "alice", "passportChecked"] + state)
            #expect(wrong.status != 0 && wrong.output.contains("confirmed, or derived"), "\(wrong.output)")
            let set = try await hearthctl(["admin", "set-age-assurance", "alice", "governmentIDChecked"] + state)
            #expect(set.status == 0 && set.output.contains("alice's age: governmentIDChecked"), "\(set.output)")
            #expect(try await declaration() == "governmentIDChecked")
            let cleared = try await hearthctl(["admin", "set-age-assurance", "alice", "derived"] + state)
            #expect(cleared.status == 0, "\(cleared.output)")
            #expect(try await declaration() == "selfDeclared")
            await service.close()
        }
    }
}
