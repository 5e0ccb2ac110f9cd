import Foundation
import HearthCore
import HearthProtocol

extension Fixtures {
    static let teenRange = DeclaredRange(
        lowerBound: 13, upperBound: 15, declaration: .guardianDeclared, parentalControls: .communicationLimits)
    static let adultRange = DeclaredRange(lowerBound: 18, upperBound: nil, declaration: .selfDeclared)
    static let childRange = DeclaredRange(
        lowerBound: nil, upperBound: 12, declaration: .guardianDeclared,
        parentalControls: ParentalControlFlags(rawValue: 0x81))
    static let agePrompt = AgePrompt(
        id: id1, memberID: "kid-1", app: "com.example.app", gates: [13, 16], range: teenRange, createdAt: t0,
        expiresAt: t1)

    static let ageEvents: [Event] = [
        Event(
            memberID: "kid-1", sequence: 4, createdAt: t0,
            body: .ageRange(.answerChanged(app: "com.example.app", .sharing(teenRange)))),
        Event(
            memberID: "kid-1", sequence: 5, createdAt: t0,
            body: .ageRange(.answerChanged(app: "a", .declined(.userDeclined)))),
        Event(memberID: "kid-1", sequence: 6, createdAt: t0, body: .ageRange(.promptOpened(agePrompt))),
        Event(
            memberID: "kid-1", sequence: 7, createdAt: t1,
            body: .ageRange(.promptClosed(id: id1, app: "com.example.app", .declined(.promptTimedOut)))),
        // Protocol 3: how the age was established, in a pushed change and a prompt's outcome.
        Event(
            memberID: "kid-1", sequence: 8, createdAt: t1,
            body: .ageRange(
                .answerChanged(
                    app: "a",
                    .sharing(DeclaredRange(lowerBound: 18, upperBound: nil, declaration: .governmentIDChecked))))),
        Event(
            memberID: "kid-1", sequence: 9, createdAt: t1,
            body: .ageRange(
                .promptClosed(
                    id: id2, app: "a",
                    .sharing(DeclaredRange(lowerBound: 13, upperBound: 15, declaration: .guardianPaymentChecked))))),
    ]

    /// Every Declared Age Range message, most in several variants.
    static var ageMessages: [Message] {
        var all: [AgeRangeMessage] = [
            .request(app: "com.example.app", gates: [13, 16]),
            .request(app: "a", gates: []),
            .request(app: "a", gates: [2, 50, 99, 120]),
            .answerPrompt(id: id1, share: true),
            .answerPrompt(id: id2, share: false),
            .clearCache(app: "com.example.app"),
            .watch(app: "com.example.app"),
            .listPrompts,
            .result(app: "com.example.app", .sharing(teenRange)),
            .result(app: "a", .sharing(adultRange)),
            .result(app: "a", .sharing(childRange)),
            .prompted(id: id1, app: "com.example.app", timeoutMilliseconds: 60_000),
            .promptAnswered(id: id1, .sharing(teenRange)),
            .cacheCleared(app: "a", existed: true),
            .cacheCleared(app: "a", existed: false),
            .promptList([]),
            .promptList([agePrompt, agePrompt]),
            .update(app: "a", promptID: nil, .sharing(adultRange)),
            .update(app: "a", promptID: id2, .declined(.promptTimedOut)),
            .requestRegulatoryFeatures,
            .acknowledgeUpdate(app: "com.example.app", description: "Adds video calls.\nAsk a parent 🐉"),
            .regulatoryFeatures([]),
            .regulatoryFeatures([.declaredAgeRangeRequired, .significantAppChangeRequiresParentalConsent]),
            .regulatoryFeatures(RegulatoryFeatures(rawValue: 0xFF)),
        ]
        for sharing in AgeSharing.allCases {
            all.append(.setSharing(member: "kid-1", sharing))
            all.append(.sharingSet(member: "kid-1", sharing))
        }
        for reason in AgeDeclineReason.allCases { all.append(.result(app: "a", .declined(reason))) }
        return all.map(Message.ageRange) + ageEvents.map(Message.event) + [.events(head: 7, events: ageEvents)]
    }

    static let ageTypeCodes: Set<UInt8> = [
        0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7,
    ]
}
