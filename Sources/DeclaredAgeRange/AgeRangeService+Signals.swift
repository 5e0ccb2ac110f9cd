import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

/// What the broker says about the user beyond a range: the features their region's law requires of apps.
struct AgeSignals: Sendable, Hashable {
    var regulatoryFeatures: Set<AgeRangeService.RegulatoryFeature>
}

extension AgeRangeService {
    /// The user's signals, from the broker (its region rules, the member's region and age) through the device daemon.
    /// Throws `Failure`: `notAvailable` for a daemon or broker that predates them (`incompatibleDaemon`), an
    /// unreachable broker (`brokerUnreachable`) or an unenrolled device.
    func signals() async throws -> AgeSignals {
        let reply: Message
        do {
            reply = try await connection.request(.ageRange(.requestRegulatoryFeatures))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Failure(error, socketPath: socketPath)
        }
        guard case .ageRange(.regulatoryFeatures(let features)) = reply else {
            throw Failure.notAvailable(
                reason: .incompatibleDaemon(
                    message: TransportError.unexpectedReply(peer: connection.peerName, type: reply.typeCode).description
                ))
        }
        return AgeSignals(regulatoryFeatures: Set(RegulatoryFeature.allCases.filter { features.contains($0.bit) }))
    }

    /// Records the user's acknowledgment of a significant update of this app in the family's history, for the
    /// member's parents to read. `updateDescription` follows the text rule of an update's description (1 to 500
    /// characters, no control or bidirectional character: `invalidRequest` naming the rule, before anything is
    /// sent). Throws `Failure`: `notAvailable` with `rateLimited` past 10 an hour, or as `signals()` does.
    func acknowledgeSignificantUpdate(updateDescription: String) async throws {
        if let violation = ShortText.violation(
            in: updateDescription, field: "updateDescription", rule: .description)
        {
            throw Failure.invalidRequest(reason: violation.description)
        }
        let reply: Message
        do {
            reply = try await connection.request(
                .ageRange(.acknowledgeUpdate(app: bundleID, description: updateDescription)))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Failure(error, socketPath: socketPath)
        }
        guard case .ok = reply else {
            throw Failure.notAvailable(
                reason: .incompatibleDaemon(
                    message: TransportError.unexpectedReply(peer: connection.peerName, type: reply.typeCode).description
                ))
        }
    }
}

extension AgeRangeService.RegulatoryFeature {
    /// The feature's bit on the wire.
    var bit: RegulatoryFeatures {
        switch self {
        case .declaredAgeRangeRequired: .declaredAgeRangeRequired
        case .significantAppChangeRequiresParentalConsent: .significantAppChangeRequiresParentalConsent
        case .significantAppChangeRequiresAdultNotification: .significantAppChangeRequiresAdultNotification
        }
    }
}
