import Foundation
import HearthCore
import HearthProtocol
import Testing

/// Exact frames of the Declared Age Range messages, as docs/PROTOCOL.md §6.5 lays them out.
@Suite struct GoldenBytesAgeRangeTests {
    private func check(
        _ message: AgeRangeMessage, type: UInt8, body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let frame = MessageCodec.encode(.ageRange(message), requestID: 2)
        #expect(frame == [0x01, type, 0, 0, 0, 0, 0, 0, 0, 0x02] + body, sourceLocation: sourceLocation)
        #expect(
            try MessageCodec.decode(frame) == Envelope(requestID: 2, message: .ageRange(message)),
            sourceLocation: sourceLocation)
    }

    private let app: [UInt8] = [0, 0, 0, 1, 0x61]  // string "a"
    private let uuid: [UInt8] = [
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
    ]

    @Test func request() throws {
        try check(
            .request(app: "a", gates: [13, 16]), type: 0x40,
            body: app + [
                0, 0, 0, 2,  // gate count
                13, 16,  // gates, u8 each
            ])
    }

    @Test func setSharingAndSharingSet() throws {
        try check(.setSharing(member: "k", .askFirst), type: 0x41, body: [0, 0, 0, 1, 0x6B, 0x02])
        try check(.sharingSet(member: "k", .never), type: 0xC2, body: [0, 0, 0, 1, 0x6B, 0x03])
    }

    @Test func answerPromptClearCacheWatchList() throws {
        try check(.answerPrompt(id: Fixtures.id1, share: true), type: 0x42, body: uuid + [0x01])
        try check(.clearCache(app: "a"), type: 0x43, body: app)
        try check(.watch(app: "a"), type: 0x44, body: app)
        try check(.listPrompts, type: 0x45, body: [])
    }

    /// Negotiated version 3: the member's regulatory features, one bit each; unknown bits are kept.
    @Test func regulatoryFeaturesRequestAndResult() throws {
        try check(.requestRegulatoryFeatures, type: 0x46, body: [])
        try check(.regulatoryFeatures([]), type: 0xC7, body: [0x00])
        try check(
            .regulatoryFeatures([.declaredAgeRangeRequired, .significantAppChangeRequiresParentalConsent]), type: 0xC7,
            body: [0x03])
        try check(.regulatoryFeatures([.significantAppChangeRequiresAdultNotification]), type: 0xC7, body: [0x04])
        try check(.regulatoryFeatures(RegulatoryFeatures(rawValue: 0x81)), type: 0xC7, body: [0x81])
        #expect(throws: WireError.self) { try MessageCodec.decode([0x01, 0xC7, 0, 0, 0, 0, 0, 0, 0, 0x02]) }
        #expect(throws: WireError.self) { try MessageCodec.decode([0x01, 0x46, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00]) }
    }

    /// Negotiated version 3: an acknowledged update, the app and its description; the reply is `ok`.
    @Test func acknowledgeUpdate() throws {
        try check(
            .acknowledgeUpdate(app: "a", description: "Hi"), type: 0x47,
            body: app + [0, 0, 0, 2, 0x48, 0x69])  // description "Hi"
        #expect(throws: WireError.self) { try MessageCodec.decode([0x01, 0x47, 0, 0, 0, 0, 0, 0, 0, 0x02] + app) }
    }

    /// Version 3: how the age was established, values 3 to 9; an older peer is given who declared instead.
    @Test func assuranceValues() throws {
        for declaration in AgeDeclaration.allCases {
            let range = DeclaredRange(lowerBound: 18, upperBound: nil, declaration: declaration)
            try check(
                .result(app: "a", .sharing(range)), type: 0xC0,
                body: app + [0x01, 0x01, 18, 0x00, declaration.rawValue, 0x00])
            let older = AgeRangeAnswer.sharing(range).forPeer(version: 2)
            let who = DeclaredRange(lowerBound: 18, upperBound: nil, declaration: declaration.v1Equivalent)
            #expect(older == .sharing(who))
        }
        #expect(AgeDeclaration.governmentIDChecked.rawValue == 5 && AgeDeclaration.confirmed.rawValue == 9)
        #expect(AgeDeclaration.guardianPaymentChecked.v1Equivalent == .guardianDeclared)
        #expect(AgeDeclaration.confirmed.v1Equivalent == .selfDeclared)
    }

    @Test func resultSharingAndDeclined() throws {
        let range = DeclaredRange(
            lowerBound: 13, upperBound: 15, declaration: .guardianDeclared, parentalControls: .communicationLimits)
        try check(
            .result(app: "a", .sharing(range)), type: 0xC0,
            body: app + [
                0x01,  // answer kind: sharing
                0x01, 13,  // lowerBound: present, 13
                0x01, 15,  // upperBound: present, 15
                0x02,  // declaration: guardianDeclared
                0x01,  // parental controls: communicationLimits
            ])
        let adult = DeclaredRange(lowerBound: 18, upperBound: nil, declaration: .selfDeclared)
        try check(.result(app: "a", .sharing(adult)), type: 0xC0, body: app + [0x01, 0x01, 18, 0x00, 0x01, 0x00])
        try check(
            .result(app: "a", .declined(.neverShare)), type: 0xC0,
            body: app + [
                0x02,  // answer kind: declined
                0x01,  // reason: neverShare
            ])
    }

    @Test func promptedAnsweredClearedUpdate() throws {
        try check(
            .prompted(id: Fixtures.id1, app: "a", timeoutMilliseconds: 60_000), type: 0xC1,
            body: uuid + app + [0x00, 0x00, 0xEA, 0x60])
        try check(.promptAnswered(id: Fixtures.id1, .declined(.userDeclined)), type: 0xC3, body: uuid + [0x02, 0x02])
        try check(.cacheCleared(app: "a", existed: true), type: 0xC4, body: app + [0x01])
        try check(
            .update(app: "a", promptID: Fixtures.id1, .declined(.promptTimedOut)), type: 0xC6,
            body: app + [0x01] + uuid + [0x02, 0x03])
        try check(
            .update(app: "a", promptID: nil, .declined(.promptTimedOut)), type: 0xC6, body: app + [0x00, 0x02, 0x03])
    }

    @Test func promptListAndPromptEvent() throws {
        let range = DeclaredRange(lowerBound: nil, upperBound: 12, declaration: .guardianDeclared)
        let prompt = AgePrompt(
            id: Fixtures.id1, memberID: "k", app: "a", gates: [13], range: range,
            createdAt: Date(timeIntervalSince1970: 0), expiresAt: Date(timeIntervalSince1970: 60))
        let promptBytes: [UInt8] =
            uuid + [
                0, 0, 0, 1, 0x6B,  // memberID "k"
            ] + app + [
                0, 0, 0, 1, 13,  // gates
                0x00, 0x01, 12, 0x02, 0x00,  // range: no lower bound, upper 12, guardianDeclared, no controls
                0, 0, 0, 0, 0, 0, 0, 0,  // createdAt: 0 ms
                0, 0, 0, 0, 0, 0, 0xEA, 0x60,  // expiresAt: 60,000 ms
            ]
        try check(.promptList([prompt]), type: 0xC5, body: [0, 0, 0, 1] + promptBytes)

        let event = Event(
            memberID: "k", sequence: 1, createdAt: Date(timeIntervalSince1970: 0),
            body: .ageRange(.promptOpened(prompt)))
        let frame = MessageCodec.encode(.event(event))
        #expect(
            Array(frame[10...]) == [0, 0, 0, 1, 0x6B, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
                + [0x11]  // event kind: age range prompt opened
                + promptBytes)
        let changed = Event(
            memberID: "k", sequence: 2, createdAt: Date(timeIntervalSince1970: 0),
            body: .ageRange(.answerChanged(app: "a", .declined(.userDeclined))))
        #expect(Array(MessageCodec.encode(.event(changed))[31...]) == [0x10] + app + [0x02, 0x02])
        let closed = Event(
            memberID: "k", sequence: 3, createdAt: Date(timeIntervalSince1970: 0),
            body: .ageRange(.promptClosed(id: Fixtures.id1, app: "a", .declined(.promptTimedOut))))
        #expect(Array(MessageCodec.encode(.event(closed))[31...]) == [0x12] + uuid + app + [0x02, 0x03])
    }

    /// docs/PROTOCOL.md §5.8: event 0x10 holding how the age was established, as the log keeps it and as a peer
    /// below version 3 gets it (who declared).
    @Test func anAnswerChangedEventWithAnAssuranceAndItsVersionOneForm() {
        let range = DeclaredRange(lowerBound: 18, upperBound: nil, declaration: .governmentIDChecked)
        let event = Event(
            memberID: "k", sequence: 2, createdAt: Date(timeIntervalSince1970: 0),
            body: .ageRange(.answerChanged(app: "a", .sharing(range))))
        let whole: [UInt8] = [0x10, 0, 0, 0, 1, 0x61, 0x01, 0x01, 0x12, 0x00, 0x05, 0x00]
        #expect(Array(MessageCodec.encode(.event(event))[31...]) == whole)
        #expect(event.peerVersion == 3)
        let older = event.forPeer(version: 2)
        #expect(Array(MessageCodec.encode(.event(older))[31...]) == whole.dropLast(2) + [0x01, 0x00])
        #expect(older.peerVersion == 1 && older.forPeer(version: 1) == older)
    }

    @Test func hostileAgeFieldsAreRefusedByName() throws {
        func failure(_ frame: [UInt8]) -> WireError? {
            do {
                _ = try MessageCodec.decode(frame)
                return nil
            } catch { return error }
        }
        #expect(
            failure(
                Fixtures.frame(type: 0x40) { w in
                    w.string("a b")
                    w.u32(0)
                })
                == .invalidValue(field: "ageRangeRequest.app", reason: "must be 1-255 characters of A-Z a-z 0-9 . _ -"))
        #expect(
            failure(
                Fixtures.frame(type: 0x40) { w in
                    w.string("a")
                    w.u32(17)
                })
                == .tooLong(field: "ageRangeRequest.gates", length: 17, max: 16))
        #expect(
            failure(
                Fixtures.frame(type: 0x41) { w in
                    w.string("k")
                    w.u8(9)
                })
                == .unknownEnumValue(field: "ageSetSharing.sharing", value: 9))
        #expect(
            failure(
                Fixtures.frame(type: 0xC0) { w in
                    w.string("a")
                    w.u8(3)
                })
                == .unknownEnumValue(field: "ageRangeResult.answer.kind", value: 3))
        #expect(
            failure(
                Fixtures.frame(type: 0xC0) { w in
                    w.string("a")
                    w.u8(1)
                    w.u8(1)
                    w.u8(16)
                    w.u8(1)
                    w.u8(12)
                    w.u8(1)
                    w.u8(0)
                })
                == .invalidValue(
                    field: "ageRangeResult.answer.range.upperBound", reason: "12 is below the lower bound 16"))
        #expect(
            failure(
                Fixtures.frame(type: 0xC0) { w in
                    w.string("a")
                    w.u8(1)
                    w.u8(0)
                    w.u8(0)
                    w.u8(10)
                    w.u8(0)
                })
                == .unknownEnumValue(field: "ageRangeResult.answer.range.declaration", value: 10))
        #expect(
            failure(
                Fixtures.frame(type: 0xC0) { w in
                    w.string("a")
                    w.u8(2)
                    w.u8(0)
                })
                == .unknownEnumValue(field: "ageRangeResult.answer.reason", value: 0))
        #expect(failure(Fixtures.frame(type: 0x4F)) == .unknownMessageType(0x4F))
        #expect(failure(Fixtures.frame(type: 0xCF)) == .unknownMessageType(0xCF))
    }
}
