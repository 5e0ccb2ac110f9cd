import DeviceRuntime
import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// The parent-device daemon's behaviour: keeps the questions waiting for this parent, with all their metadata (in
/// its `ParentStore`), and lets a person list and answer them over the local control socket.
public final class ParentBehavior: DeviceBehavior {
    public let name = "parent-device"
    private let store: ParentStore

    public init(store: ParentStore) {
        self.store = store
    }

    public func apply(_ event: Event, in db: Database) throws {
        try ParentStore.apply(event, in: db)
    }

    public func applied(_ events: [Event], context: any DeviceContext) async {
        for event in events {
            switch event.body {
            case .questionPending(let asked):
                context.logger.info("question waiting", metadata: [
                    "question": "\(asked.question.id)", "child": "\(asked.childMemberID)", "app": "\(asked.appBundleID)",
                ])
            case .questionResolved(let asked, let resolution):
                context.logger.info("question answered", metadata: [
                    "question": "\(asked.question.id)", "choice": "\(resolution.choice.id)",
                    "by": "\(resolution.answeredBy ?? "-")", "reason": "\(resolution.reason)",
                ])
            case .handlesChanged, .ageRange, .omitted: break
            }
        }
    }

    public func linked(context: any DeviceContext) async {}

    public func handleLocal(
        _ envelope: Envelope, from routingID: [UInt8], context: any DeviceContext
    ) async -> Message? {
        switch envelope.message {
        case .listPending:
            do {
                // Oldest first, as many as fit in one frame: a person answers and lists again.
                return .pendingList(try await store.pending(maxBytes: Wire.maxReplyBodyBytes))
            } catch {
                return .error(ErrorReply(.internalError, "parent-device could not read its pending list"))
            }
        case .answer, .setLimits, .getLimits, .editContacts, .revokeApproval, .setPasscode:
            // A parent's commands: the broker checks that this device's member may give them.
            return await context.forward(envelope.message)
        default:
            let type = String(envelope.message.typeCode, radix: 16)
            return .error(ErrorReply(.unknownMessageType, "parent-device does not handle message type 0x\(type)"))
        }
    }
}
