import Foundation
public import HearthCore

extension WireReader {
    /// A bundle id field: 1-255 characters of `[A-Za-z0-9._-]`.
    mutating func bundleID(_ field: String) throws(WireError) -> BundleID {
        let text = try string(field, max: 255)
        guard Identifier.isValidBundleID(text) else {
            throw .invalidValue(field: field, reason: "must be 1-255 characters of A-Z a-z 0-9 . _ -")
        }
        return text
    }

    public mutating func declaredRange(_ field: String = "range") throws(WireError) -> DeclaredRange {
        let lower = try optional("\(field).lowerBound") { (r: inout WireReader) throws(WireError) in
            Int(try r.u8("\(field).lowerBound"))
        }
        let upper = try optional("\(field).upperBound") { (r: inout WireReader) throws(WireError) in
            Int(try r.u8("\(field).upperBound"))
        }
        if let lower, let upper, upper < lower {
            throw .invalidValue(field: "\(field).upperBound", reason: "\(upper) is below the lower bound \(lower)")
        }
        let code = try u8("\(field).declaration")
        // Values 3-9 exist from version 3; a sender gives an older peer 1 or 2 (`forPeer(version:)`).
        guard let declaration = AgeDeclaration(rawValue: code) else {
            throw .unknownEnumValue(field: "\(field).declaration", value: UInt64(code))
        }
        // Unknown control bits are kept: a newer broker may report controls this build does not name.
        let controls = ParentalControlFlags(rawValue: try u8("\(field).parentalControls"))
        return DeclaredRange(lowerBound: lower, upperBound: upper, declaration: declaration, parentalControls: controls)
    }

    public mutating func ageRangeAnswer(_ field: String = "answer") throws(WireError) -> AgeRangeAnswer {
        switch try u8("\(field).kind") {
        case 1: return .sharing(try declaredRange("\(field).range"))
        case 2:
            let code = try u8("\(field).reason")
            guard let reason = AgeDeclineReason(rawValue: code) else {
                throw .unknownEnumValue(field: "\(field).reason", value: UInt64(code))
            }
            return .declined(reason)
        case let other: throw .unknownEnumValue(field: "\(field).kind", value: UInt64(other))
        }
    }

    mutating func ageGates(_ field: String) throws(WireError) -> [Int] {
        // Up to 16 on the wire, so that "4 gates" reaches the rule check and gets its own message.
        try array(field, max: 16) { (r: inout WireReader) throws(WireError) in Int(try r.u8("\(field)[]")) }
    }

    public mutating func agePrompt() throws(WireError) -> AgePrompt {
        let id = try uuid("prompt.id")
        let member = try identifier("prompt.memberID")
        let app = try bundleID("prompt.app")
        let gates = try ageGates("prompt.gates")
        let range = try declaredRange("prompt.range")
        let created = try date("prompt.createdAt")
        let expires = try date("prompt.expiresAt")
        return AgePrompt(
            id: id, memberID: member, app: app, gates: gates, range: range, createdAt: created, expiresAt: expires)
    }

    /// The fields of an `Event.Body.ageRange` whose kind byte `kind` was read already.
    public mutating func ageRangeEvent(kind: UInt8) throws(WireError) -> AgeRangeEvent {
        switch kind {
        case 0x10:
            let app = try bundleID("event.app")
            return .answerChanged(app: app, try ageRangeAnswer("event.answer"))
        case 0x11: return .promptOpened(try agePrompt())
        case 0x12:
            let id = try uuid("event.promptID")
            let app = try bundleID("event.app")
            return .promptClosed(id: id, app: app, try ageRangeAnswer("event.answer"))
        default: throw .unknownEnumValue(field: "event.kind", value: UInt64(kind))
        }
    }

    /// The body of a `Message.ageRange` of type `type`.
    public mutating func ageRangeMessage(type: UInt8) throws(WireError) -> AgeRangeMessage {
        guard let type = MessageType(rawValue: type) else { throw .unknownMessageType(type) }
        return try ageRangeMessage(type: type)
    }

    /// The body of a `Message.ageRange` of type `type`.
    public mutating func ageRangeMessage(type: MessageType) throws(WireError) -> AgeRangeMessage {
        switch type {
        case .ageRangeRequest:
            let app = try bundleID("ageRangeRequest.app")
            return .request(app: app, gates: try ageGates("ageRangeRequest.gates"))
        case .ageSetSharing:
            let member = try identifier("ageSetSharing.memberID")
            return .setSharing(member: member, try sharing("ageSetSharing.sharing"))
        case .ageAnswerPrompt:
            let id = try uuid("ageAnswerPrompt.promptID")
            return .answerPrompt(id: id, share: try bool("ageAnswerPrompt.share"))
        case .ageClearCache: return .clearCache(app: try bundleID("ageClearCache.app"))
        case .ageWatch: return .watch(app: try bundleID("ageWatch.app"))
        case .ageListPrompts: return .listPrompts
        case .ageRegulatoryRequest: return .requestRegulatoryFeatures
        case .ageAcknowledgeUpdate:
            let app = try bundleID("ageAcknowledgeUpdate.app")
            // The text rule (`ShortText.Rule.description`) is the receiver's to check, naming the field.
            return .acknowledgeUpdate(app: app, description: try string("ageAcknowledgeUpdate.description"))
        // Unknown bits are kept: a newer broker may name features this build does not.
        case .ageRegulatoryFeatures: return .regulatoryFeatures(RegulatoryFeatures(rawValue: try u8("features")))
        case .ageRangeResult:
            let app = try bundleID("ageRangeResult.app")
            return .result(app: app, try ageRangeAnswer("ageRangeResult.answer"))
        case .ageRangePrompted:
            let id = try uuid("ageRangePrompted.promptID")
            let app = try bundleID("ageRangePrompted.app")
            return .prompted(id: id, app: app, timeoutMilliseconds: try u32("ageRangePrompted.timeoutMilliseconds"))
        case .ageSharingSet:
            let member = try identifier("ageSharingSet.memberID")
            return .sharingSet(member: member, try sharing("ageSharingSet.sharing"))
        case .agePromptAnswered:
            let id = try uuid("agePromptAnswered.promptID")
            return .promptAnswered(id: id, try ageRangeAnswer("agePromptAnswered.answer"))
        case .ageCacheCleared:
            let app = try bundleID("ageCacheCleared.app")
            return .cacheCleared(app: app, existed: try bool("ageCacheCleared.existed"))
        case .agePromptList:
            return .promptList(
                try array("agePromptList.prompts", max: 1000) { (r: inout WireReader) throws(WireError) in
                    try r.agePrompt()
                })
        case .ageRangeUpdate:
            let app = try bundleID("ageRangeUpdate.app")
            let promptID = try optional("ageRangeUpdate.promptID") { (r: inout WireReader) throws(WireError) in
                try r.uuid("ageRangeUpdate.promptID")
            }
            return .update(app: app, promptID: promptID, try ageRangeAnswer("ageRangeUpdate.answer"))
        default: throw .unknownMessageType(type.rawValue)
        }
    }

    private mutating func sharing(_ field: String) throws(WireError) -> AgeSharing {
        let code = try u8(field)
        guard let sharing = AgeSharing(rawValue: code) else {
            throw .unknownEnumValue(field: field, value: UInt64(code))
        }
        return sharing
    }
}
