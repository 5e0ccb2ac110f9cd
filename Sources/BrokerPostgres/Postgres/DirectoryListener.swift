#if PostgreSQL
import Foundation
import Logging
import PostgresNIO

/// Learns at once what another broker of the cluster changed in the directory (enrolments, revocations, families):
/// `LISTEN` on a connection of its own, reading the whole directory again on each notice from another broker and
/// after every (re)connection, since notices sent while it was away are lost.
package struct DirectoryListener: Sendable {
    let url: PostgresURL
    let password: String
    /// This broker's name: its own notices are not news.
    let brokerName: String
    let logger: Logger
    /// Reads the directory again and cuts off the keys no longer enrolled.
    let reload: @Sendable () async -> Void

    init(store: PostgresStore, brokerName: String, reload: @escaping @Sendable () async -> Void) {
        url = store.url
        password = store.password
        self.brokerName = brokerName
        logger = store.logger
        self.reload = reload
    }

    /// Listens until cancelled, reconnecting a second after a lost connection (a server gone silent included: the
    /// connection's TCP keepalive ends a `LISTEN` that no statement deadline bounds).
    package func run() async {
        var reported = false
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.open(
                    url: url, password: password, id: 2, logger: logger
                ).get()
                reported = false
                do {
                    try await listen(on: connection)
                } catch {
                    // Closed whatever happened: postgres-nio requires it of every connection it opened.
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if !reported, !Task.isCancelled {
                    logger.error("directory listener lost its connection", metadata: ["error": "\(error)"])
                    reported = true
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Reads the directory, then again on each notice from another broker, until the connection or the task ends.
    private func listen(on connection: PostgresConnection) async throws {
        try await withTaskCancellationHandler {
            try await connection.listen(on: PostgresStore.directoryChannel) { notices in
                // Listening before reading: a change committed from here on is either read or noticed.
                await reload()
                for try await notice in notices where notice.payload != brokerName { await reload() }
            }
        } onCancel: {
            Task { try? await connection.close() }
        }
    }
}
#endif
