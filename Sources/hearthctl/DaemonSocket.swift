import ArgumentParser
import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

/// Connects hearthctl to a device daemon's local socket, with a clear message when the daemon is not running.
enum DaemonSocket {
    static func connect(daemon: String, path: String) async throws -> LocalClient {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("\(daemon) is not running: there is no socket at \(path).\n" + startHint(daemon))
        }
        if let wrong = DaemonIdentity.mismatch(needed: daemon, path: path) { throw wrong }
        let client = try LocalClient(endpoint: LocalEndpoints.ipc(path), peer: daemon)
        do {
            // Refuses a socket or directory another user could have planted, before anything is sent.
            try await client.start()
        } catch {
            await client.close()
            throw explain(error, daemon: daemon)
        }
        return client
    }

    /// How to start `daemon` and how to point hearthctl elsewhere: the broker's admin socket is found through its state
    /// directory, a device daemon's through --socket.
    static func startHint(_ daemon: String) -> String {
        switch daemon {
        case "family-broker":
            """
            Start it (see README.md), e.g. `family-broker --config config/broker.yaml --state DIR`, or run \
            `deploy/local/run` (then --broker-state .hearth/local/broker); pass --broker-state DIR (or set \
            HEARTH_BROKER_STATE) if its state directory is elsewhere.
            """
        case "child-device", "parent-device":
            """
            Start it (see README.md), e.g. `\(daemon) --key-file KEY --state DIR --broker-ready \
            BROKER_STATE/broker.ready.json`, or run `deploy/local/run`; pass --socket if it listens elsewhere.
            """
        default:
            """
            Start child-device or parent-device (see README.md), or run `deploy/local/run`; pass --socket if it \
            listens elsewhere.
            """
        }
    }

    /// A message for an error reply or a timeout, naming the daemon.
    static func explain(_ error: any Error, daemon: String) -> CommandFailure {
        switch error {
        case let reply as ErrorReply: CommandFailure("\(daemon): \(reply.message) [\(reply.code)]")
        case let transport as TransportError:
            CommandFailure("\(transport); is \(daemon) running and linked to its broker?")
        default: CommandFailure("\(daemon): \(error)")
        }
    }
}

extension DaemonSocket {
    /// Sends one request to a daemon's socket and returns its reply; an error reply becomes a clear message.
    static func request(
        _ message: Message, daemon: String, path: String, timeout: Duration? = nil
    ) async throws -> Message {
        let client = try await connect(daemon: daemon, path: path)
        defer { Task { await client.close() } }
        do {
            return try await client.request(message, timeout: timeout ?? max(.seconds(10), message.localDeadline))
        } catch {
            throw explain(error, daemon: daemon)
        }
    }

    /// Parses `KIND:VALUE`, e.g. `phone:+15551234567` (see `HandleText`).
    static func handle(_ text: String) throws -> CommunicationHandle {
        try HandleText.parse(text)
    }

    /// Sends a request whose reply is `limits` (getLimits, editContacts) and returns the child's settings and contacts.
    static func limits(
        _ message: Message, daemon: String, path: String
    ) async throws -> (settings: CommunicationSettings, contacts: [Contact]) {
        guard case .limits(_, let settings, let contacts) = try await request(message, daemon: daemon, path: path)
        else {
            throw CommandFailure("\(daemon) gave an unexpected reply")
        }
        return (settings, contacts)
    }

    static func describe(_ settings: CommunicationSettings, contacts: [Contact], child: MemberID) -> String {
        var lines = ["\(child): Communication Limits \(settings.enabled ? "on" : "off")"]
        lines.append("  during Screen Time: \(settings.screenTime.name)")
        lines.append(
            "  during downtime (\(settings.downtimeSchedule?.text ?? "no schedule")): \(settings.downtime.name)")
        lines.append("  contact editing by the child: \(settings.allowContactEditing ? "allowed" : "not allowed")")
        lines.append("  contacts: \(contacts.isEmpty ? "none" : "")")
        for contact in contacts {
            lines.append(
                "    \(ShortText.escaped(contact.handle.description))\(contact.allowedDuringDowntime ? " (allowed during downtime)" : "")"
            )
        }
        return lines.joined(separator: "\n")
    }
}
