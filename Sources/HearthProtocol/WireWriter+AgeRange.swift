import Foundation
public import HearthCore

extension WireWriter {
    public mutating func declaredRange(_ r: DeclaredRange) {
        optional(r.lowerBound) { $0.u8(UInt8(clamping: $1)) }
        optional(r.upperBound) { $0.u8(UInt8(clamping: $1)) }
        // Values 3-9 (how the age was checked) only reach peers of version 3: the broker gives older ones
        // `forPeer(version:)`, who declared (docs/PROTOCOL.md §5.12).
        u8(r.declaration.rawValue)
        u8(r.parentalControls.rawValue)
    }

    public mutating func ageRangeAnswer(_ a: AgeRangeAnswer) {
        switch a {
        case .sharing(let range):
            u8(1)
            declaredRange(range)
        case .declined(let reason):
            u8(2)
            u8(reason.rawValue)
        }
    }

    public mutating func agePrompt(_ p: AgePrompt) {
        uuid(p.id)
        string(p.memberID)
        string(p.app)
        array(p.gates) { $0.u8(UInt8(clamping: $1)) }
        declaredRange(p.range)
        date(p.createdAt)
        date(p.expiresAt)
    }

    /// An `Event.Body.ageRange`: its kind byte (0x10–0x1F), then its fields.
    public mutating func ageRangeEvent(_ e: AgeRangeEvent) {
        switch e {
        case .answerChanged(let app, let answer):
            u8(0x10)
            string(app)
            ageRangeAnswer(answer)
        case .promptOpened(let prompt):
            u8(0x11)
            agePrompt(prompt)
        case .promptClosed(let id, let app, let answer):
            u8(0x12)
            uuid(id)
            string(app)
            ageRangeAnswer(answer)
        }
    }

    /// The body of a `Message.ageRange`.
    public mutating func ageRangeMessage(_ m: AgeRangeMessage) {
        switch m {
        case .request(let app, let gates):
            string(app)
            array(gates) { $0.u8(UInt8(clamping: $1)) }
        case .setSharing(let member, let sharing), .sharingSet(let member, let sharing):
            string(member)
            u8(sharing.rawValue)
        case .answerPrompt(let id, let share):
            uuid(id)
            bool(share)
        case .clearCache(let app), .watch(let app):
            string(app)
        case .acknowledgeUpdate(let app, let description):
            string(app)
            string(description)
        case .listPrompts, .requestRegulatoryFeatures:
            break
        case .regulatoryFeatures(let features):
            u8(features.rawValue)
        case .result(let app, let answer):
            string(app)
            ageRangeAnswer(answer)
        case .prompted(let id, let app, let timeout):
            uuid(id)
            string(app)
            u32(timeout)
        case .promptAnswered(let id, let answer):
            uuid(id)
            ageRangeAnswer(answer)
        case .cacheCleared(let app, let existed):
            string(app)
            bool(existed)
        case .promptList(let prompts):
            array(prompts) { $0.agePrompt($1) }
        case .update(let app, let promptID, let answer):
            string(app)
            optional(promptID) { $0.uuid($1) }
            ageRangeAnswer(answer)
        }
    }
}
