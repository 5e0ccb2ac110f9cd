public import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

extension AgeRangeService {
    /// An Ask First prompt the user was shown for a request: the request waits until they answer it on one of their
    /// devices (`hearthctl age answer`), or until `expiresIn` has passed, which declines.
    public struct Prompt: Hashable, Sendable {
        /// The prompt's id, as the user's devices list it.
        public let id: UUID
        /// How long the user has to answer.
        public let expiresIn: Duration
    }

    /// `requestAgeRange(ageGates:_:_:)` with the gates as a list (1 to 3), calling `prompted` as soon as the daemon
    /// says the user is being prompted, before the wait for their answer: a tool can tell its user a prompt is
    /// waiting for them. `prompted` is not called when the answer is known at once.
    public func requestAgeRange(
        ageGates gates: [Int], prompted: @Sendable (Prompt) -> Void
    ) async throws -> Response {
        do {
            try AgeRangeRules.validate(gates)
        } catch {
            throw Failure.invalidRequest(reason: error.description)
        }
        let reply: Message
        do {
            reply = try await connection.request(.ageRange(.request(app: bundleID, gates: gates)))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Failure(error, socketPath: socketPath)
        }
        switch reply {
        case .ageRange(.result(_, let answer)):
            return Response(answer)
        case .ageRange(.prompted(let id, _, let milliseconds)):
            prompted(Prompt(id: id, expiresIn: .milliseconds(Int(milliseconds))))
            // The daemon answers by the prompt's deadline; past it and our slack, the daemon itself is gone.
            let deadline = Duration.milliseconds(Int(milliseconds)) + timeout
            guard let answer = await connection.outcome(of: id, within: deadline) else {
                if Task.isCancelled { throw CancellationError() }
                throw Failure.notAvailable(reason: .timedOut(socketPath: socketPath, seconds: deadline.seconds))
            }
            return Response(answer)
        default:
            throw Failure.notAvailable(
                reason: .incompatibleDaemon(
                    message: TransportError.unexpectedReply(peer: connection.peerName, type: reply.typeCode).description
                ))
        }
    }
}
