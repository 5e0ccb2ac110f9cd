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

    /// Records the user's acknowledgment of a significant update of this app. Throws `Failure`.
    func acknowledgeSignificantUpdate(updateDescription: String) async throws {
        throw Failure.notAvailable(
            reason: .incompatibleDaemon(message: "this device daemon does not record acknowledgments"))
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
