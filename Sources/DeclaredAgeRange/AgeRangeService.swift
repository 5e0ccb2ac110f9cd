import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

/// An app's entry point to Declared Age Range: the user's age range relative to the app's age gates, never a birth
/// date. Talks to the device daemon (child-device or parent-device) over its local socket; every call has a deadline.
public final class AgeRangeService: Sendable {
    /// The instance for this process: the daemon at `LocalEndpoints.deviceSocket`, the app named by
    /// `$HEARTH_APP_BUNDLE_ID`, else by the process name.
    public static let shared = AgeRangeService(
        socketPath: LocalEndpoints.deviceSocket, bundleID: AppIdentity.bundleID())

    /// The device daemon's socket path.
    public let socketPath: String
    /// The bundle id this app asks under: the cache and the prompts are per app.
    public let bundleID: String
    /// The deadline of each request to the daemon. A prompted request also waits for the prompt's own deadline,
    /// which the daemon states.
    public let timeout: Duration

    let connection: AgeRangeConnection

    /// An instance talking to the daemon at `socketPath` as the app `bundleID`. Nothing connects until first use.
    public init(socketPath: String, bundleID: String, timeout: Duration = .seconds(5)) {
        self.socketPath = socketPath
        self.bundleID = bundleID
        self.timeout = timeout
        connection = AgeRangeConnection(socketPath: socketPath, bundleID: bundleID, timeout: timeout)
    }

    /// Asks for the user's age range relative to 1 to 3 ascending age gates, each range at least 2 years wide.
    ///
    /// Returns `.sharing(range:)` or `.declinedSharing`. Under Ask First the user is prompted on their device and
    /// this waits for the answer (a prompt nobody answers in time declines). Throws `AgeRangeService.Failure`:
    /// `invalidRequest` naming the rule the gates break, or `notAvailable` with the reason; or `CancellationError`.
    public func requestAgeRange(
        ageGates threshold1: Int, _ threshold2: Int? = nil, _ threshold3: Int? = nil
    ) async throws -> Response {
        try await requestAgeRange(ageGates: [threshold1, threshold2, threshold3].compactMap { $0 }, prompted: { _ in })
    }

    /// What Apple lacks: every new answer for this app, as the user's devices learn it — a range revealed on an
    /// anniversary (Always Share), a prompt answered on another device, a decline. Each iteration is a subscription of
    /// its own; iterations end after `close()`.
    public var updates: some AsyncSequence<Response, Never> & Sendable {
        AgeRangeUpdates(connection: connection)
    }

    /// Releases the connection and ends live iterations of `updates`; a later call connects again.
    public func close() async {
        await connection.close()
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
