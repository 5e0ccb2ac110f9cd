import ArgumentParser
import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

extension Parent {
    struct Limits: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a child's Communication Limits, or change them.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String
        @Flag(inversion: .prefixedEnableDisable, exclusivity: .exclusive, help: "Turn Communication Limits on or off.")
        var limits: Bool?
        @Option(help: "During Screen Time: contactsOnly, contactsAndGroups or everyone.") var screenTime: String?
        @Option(help: "During downtime: contactsOnly, contactsAndGroups, everyone or specificContacts.") var downtime:
            String?
        @Option(help: "Downtime window HH:MM-HH:MM (24-hour, not empty) in the child's time zone, or 'none'.")
        var schedule: String?
        @Option(help: "Whether the child may edit contacts: yes or no.") var contactEditing: String?

        func validate() throws {
            // Before anything is sent: a window refused here has not reached the child's device.
            if let schedule, schedule != "none" { _ = try ScheduleText.parse(schedule) }
        }

        func run() async throws {
            var (settings, contacts) = try await DaemonSocket.limits(
                .getLimits(childID: child), daemon: "parent-device", path: options.socket)
            let changing =
                limits != nil || screenTime != nil || downtime != nil || schedule != nil || contactEditing != nil
            if changing {
                if let limits { settings.enabled = limits }
                if let screenTime {
                    guard let scope = CommunicationSettings.Scope(name: screenTime), scope != .specificContacts else {
                        throw ValidationError(
                            "--screen-time: '\(screenTime)' is not contactsOnly, contactsAndGroups or everyone")
                    }
                    settings.screenTime = scope
                }
                if let downtime {
                    guard let scope = CommunicationSettings.Scope(name: downtime) else {
                        throw ValidationError(
                            "--downtime: '\(downtime)' is not contactsOnly, contactsAndGroups, everyone or specificContacts"
                        )
                    }
                    settings.downtime = scope
                }
                if let schedule {
                    if schedule == "none" {
                        settings.downtimeSchedule = nil
                    } else {
                        settings.downtimeSchedule = try ScheduleText.parse(schedule)
                    }
                }
                if let contactEditing {
                    guard ["yes", "no"].contains(contactEditing) else {
                        throw ValidationError("--contact-editing: yes or no")
                    }
                    settings.allowContactEditing = contactEditing == "yes"
                }
                _ = try await DaemonSocket.request(
                    .setLimits(childID: child, settings: settings), daemon: "parent-device", path: options.socket)
            }
            print(DaemonSocket.describe(settings, contacts: contacts, child: child))
        }
    }

    struct Contacts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or remove a child's contacts (KIND:VALUE, kind phone, email or custom).",
            discussion: """
                A handle is KIND:VALUE: phone:+15551234567 (E.164: + and 8 to 15 digits), email:sam@example.com or \
                custom:NAME; phoneNumber: and emailAddress:, as hearthctl prints them, are accepted too.
                """)
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String
        @Option(help: "A contact to add.") var add: [String] = []
        @Option(help: "A contact to add, reachable during downtime when downtime is specificContacts.") var addDowntime:
            [String] = []
        @Option(help: "A contact to remove.") var remove: [String] = []

        func validate() throws {
            for text in add + addDowntime + remove { _ = try DaemonSocket.handle(text) }
        }

        func run() async throws {
            let added =
                try add.map { Contact(handle: try DaemonSocket.handle($0)) }
                + addDowntime.map { Contact(handle: try DaemonSocket.handle($0), allowedDuringDowntime: true) }
            let removed = try remove.map(DaemonSocket.handle)
            let (settings, contacts) = try await DaemonSocket.limits(
                .editContacts(childID: child, add: added, remove: removed), daemon: "parent-device",
                path: options.socket)
            print(DaemonSocket.describe(settings, contacts: contacts, child: child))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take back approvals: the handles stop being known to the child.")
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String
        @Argument(help: "Handles as KIND:VALUE.") var handles: [String]

        func run() async throws {
            let reply = try await DaemonSocket.request(
                .revokeApproval(childID: child, handles: try handles.map(DaemonSocket.handle)), daemon: "parent-device",
                path: options.socket)
            guard case .handlesRevoked(let removed) = reply else {
                throw CommandFailure("parent-device gave an unexpected reply")
            }
            let handles = try handles.map(DaemonSocket.handle)
            if !removed.isEmpty {
                print(
                    "Revoked for \(child): \(removed.map { ShortText.escaped($0.description) }.joined(separator: ", "))"
                )
            }
            // Revoking what was never approved changed nothing: said, and the exit status tells a script.
            let notApproved = handles.filter { !removed.contains($0) }
            if !notApproved.isEmpty {
                let listed = notApproved.map { ShortText.escaped($0.description) }.joined(separator: ", ")
                FileHandle.standardError.write(Data("Not approved for \(child), nothing to revoke: \(listed)\n".utf8))
                throw ExitCode.failure
            }
        }
    }

    struct Passcode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the child's Screen Time passcode (typed twice without echo, or one line of a pipe).",
            discussion: """
                On a terminal the passcode is read without echo and asked twice; both must match. From a pipe, the \
                first line is the passcode. --clear removes it.
                """)
        @OptionGroup var options: SocketOption
        @Argument(help: "The child's member id.") var child: String
        @Flag(help: "Remove the passcode.") var clear = false

        func run() async throws {
            let passcode = clear ? "" : try SecretInput.readNew("Passcode")
            _ = try await DaemonSocket.request(
                .setPasscode(childID: child, passcode: passcode), daemon: "parent-device", path: options.socket)
            print(clear ? "Passcode removed for \(child)." : "Passcode set for \(child).")
        }
    }
}
