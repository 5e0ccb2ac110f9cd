import ArgumentParser
import Foundation
import HearthProtocol
import HearthTransport

/// Connects hearthctl to a device daemon's local socket, with a clear message when the daemon is not running.
enum DaemonSocket {
    static func connect(daemon: String, path: String) async throws -> LocalClient {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("""
                \(daemon) is not running: there is no socket at \(path).
                Start it (see README.md), e.g. `\(daemon) --key-file KEY --state DIR --broker-ready BROKER_STATE/broker.ready.json`,
                or run `deploy/local/run`; pass --socket if it listens elsewhere.
                """)
        }
        let client = try LocalClient(endpoint: LocalEndpoints.ipc(path), peer: daemon)
        try await client.start()
        return client
    }

    /// A message for an error reply or a timeout, naming the daemon.
    static func explain(_ error: any Error, daemon: String) -> ValidationError {
        switch error {
        case let reply as ErrorReply: ValidationError("\(daemon): \(reply.message) [\(reply.code)]")
        case let transport as TransportError: ValidationError("\(transport); is \(daemon) running and linked to its broker?")
        default: ValidationError("\(daemon): \(error)")
        }
    }
}
