import Foundation
package import HearthCore
public import HearthProtocol

/// The one place the broker meets the wire: device frames become `BrokerCommand`s, and replies, events and
/// heartbeats become frames, all through `MessageCodec`. The engine and the store see neither frames nor `Message`s.
public enum BrokerFrames {
    /// The command a decoded message carries, if the broker runs it; throws the error that is its reply otherwise.
    static func command(_ message: Message) throws(ErrorReply) -> BrokerCommand {
        switch message {
        case .hello(let minVersion, let maxVersion):
            guard minVersion <= maxVersion, minVersion <= Wire.highestVersion, Wire.minimumVersion <= maxVersion else {
                throw ErrorReply(
                    .unsupportedVersion,
                    "the broker speaks protocol \(Wire.minimumVersion)...\(Wire.highestVersion); the device asked for \(minVersion)...\(maxVersion)"
                )
            }
            return .hello(version: min(maxVersion, Wire.highestVersion))
        case .ping: return .ping
        case .sync(let after, let limit): return .sync(after: after, limit: limit)
        case .knownHandles(let handles): return .knownHandles(handles)
        case .ask(let app, let question): return .ask(app: app, question: question)
        case .answer(let questionID, let choiceID, let message):
            return .answer(questionID: questionID, choiceID: choiceID, message: message)
        case .approveInPerson(let questionID, let passcode):
            return .approveInPerson(questionID: questionID, passcode: passcode)
        case .declineInPerson(let questionID, let passcode):
            return .declineInPerson(questionID: questionID, passcode: passcode)
        case .withdraw(let questionID): return .withdraw(questionID: questionID)
        case .listApproved(let childID): return .listApproved(childID: childID)
        case .history(let query): return .history(query)
        case .setLimits(let childID, let settings): return .setLimits(childID: childID, settings: settings)
        case .getLimits(let childID): return .getLimits(childID: childID)
        case .editContacts(let childID, let add, let remove):
            return .editContacts(childID: childID, add: add, remove: remove)
        case .revokeApproval(let childID, let handles): return .revokeApproval(childID: childID, handles: handles)
        case .setPasscode(let childID, let passcode): return .setPasscode(childID: childID, passcode: passcode)
        case .ageRange(.request(let app, let gates)): return .requestAgeRange(app: app, gates: gates)
        case .ageRange(.setSharing(let member, let setting)): return .setAgeSharing(member: member, setting)
        case .ageRange(.answerPrompt(let id, let share)): return .answerAgePrompt(id: id, share: share)
        case .ageRange(.clearCache(let app)): return .clearAgeCache(app: app)
        case .ageRange(.requestRegulatoryFeatures): return .regulatoryFeatures
        case .ageRange(.acknowledgeUpdate(let app, let description)):
            return .acknowledgeUpdate(app: app, description: description)
        default:
            throw ErrorReply(.unknownMessageType, "message type \(message.type.hex) is not a broker command")
        }
    }

    /// The frame answering request `requestID` with `outcome`, holding only what a peer of `peerVersion` reads.
    public static func reply(
        _ outcome: CommandOutcome, requestID: UInt64, peerVersion: UInt8 = Wire.highestVersion
    ) -> [UInt8] {
        switch outcome {
        // Trimmed if it would not fit in a frame (`encodeReply`): an oversized frame would never arrive.
        case .success(let reply):
            MessageCodec.encodeReply(message(reply, peerVersion: peerVersion), requestID: requestID)
        case .failure(let error): MessageCodec.encode(.error(error), requestID: requestID)
        }
    }

    /// An error reply to a frame that never became a command, addressed by the request id in its header if intact.
    package static func error(_ error: ErrorReply, answering frame: [UInt8]) -> [UInt8] {
        MessageCodec.encode(.error(error), requestID: MessageCodec.peekRequestID(frame))
    }

    /// The admin socket's reply (`adminResult` or `error`) to request `requestID`.
    package static func admin(_ reply: Message, requestID: UInt64) -> [UInt8] {
        MessageCodec.encode(reply, requestID: requestID)
    }

    /// A heartbeat carrying a member's head.
    package static func heartbeat(head: UInt64) -> [UInt8] { MessageCodec.encode(.heartbeat(head: head)) }

    /// The pub/sub topic of a member's events and heartbeats.
    package static func topic(of member: MemberID) -> [UInt8] { Wire.topic(for: member) }

    private static func message(_ reply: BrokerReply, peerVersion: UInt8) -> Message {
        switch reply {
        case .welcome(let version, let family, let member, let device, let role, let head):
            .welcome(
                version: version, familyID: family, memberID: member, deviceID: device, role: role, head: head)
        case .pong(let head): .pong(head: head)
        case .events(let head, let events):
            // The log keeps how an age was established; an older peer gets who declared (`Event.forPeer`).
            .events(head: head, events: events.map { $0.forPeer(version: peerVersion) })
        case .knownHandles(let handles): .knownHandlesResult(handles)
        case .askAccepted(let asked, let resolution):
            .askAccepted(asked, resolution?.forPeer(version: peerVersion))
        case .answerAccepted(let resolution): .answerAccepted(resolution.forPeer(version: peerVersion))
        case .limits(let child, let settings, let contacts):
            .limits(childID: child, settings: settings, contacts: contacts)
        case .handlesRevoked(let handles): .handlesRevoked(handles)
        case .approvedList(let child, let approvals, let complete):
            .approvedList(childID: child, approvals: approvals, complete: complete)
        case .historyPage(let child, let entries, let next):
            // An older peer refuses an unknown kind, which would cost it the whole page: it gets the rest. The
            // cursor stays the page's, so its next page starts after what was left out too.
            .historyPage(
                childID: child, entries: entries.filter { $0.kind.protocolVersion <= peerVersion }, next: next)
        case .ok: .ok
        case .ageRange(let app, let answer): .ageRange(.result(app: app, answer.forPeer(version: peerVersion)))
        case .agePrompted(let id, let app, let timeout):
            .ageRange(.prompted(id: id, app: app, timeoutMilliseconds: timeout))
        case .ageSharingSet(let member, let setting): .ageRange(.sharingSet(member: member, setting))
        case .agePromptAnswered(let id, let answer):
            .ageRange(.promptAnswered(id: id, answer.forPeer(version: peerVersion)))
        case .ageCacheCleared(let app, let existed): .ageRange(.cacheCleared(app: app, existed: existed))
        case .regulatoryFeatures(let features): .ageRange(.regulatoryFeatures(features))
        case .redirect(let redirect): .redirect(redirect)
        }
    }
}
