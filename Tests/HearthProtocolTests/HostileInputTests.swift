import Foundation
import HearthCore
import HearthProtocol
import Testing

/// Frames a hostile or buggy peer could send: each must be refused with a `WireError` naming the rule, never a trap.
@Suite struct HostileInputTests {
    /// The error decoding `frame` throws, or nil (recorded as an issue) if it decodes.
    func failure(_ frame: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> WireError? {
        do {
            let envelope = try MessageCodec.decode(frame)
            Issue.record("decoded \(envelope.message) from a bad frame", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyTruncationIsRefusedAsTruncated() {
        var checked = 0
        for message in Fixtures.messages {
            let frame = MessageCodec.encode(message, requestID: 99)
            for length in 0..<frame.count {
                let prefix = Array(frame.prefix(length))
                _ = MessageCodec.peekRequestID(prefix)
                do {
                    _ = try MessageCodec.decode(prefix)
                    Issue.record("a \(length)-byte prefix of \(message) decoded")
                } catch {
                    guard case .truncated = error else {
                        Issue.record("a \(length)-byte prefix of \(message) threw \(error), not truncated")
                        continue
                    }
                }
                checked += 1
            }
        }
        #expect(checked > 5000)
    }

    @Test func wrongVersionIsUnsupported() {
        var frame = MessageCodec.encode(.ping, requestID: 3)
        frame[0] = 2
        #expect(failure(frame) == .unsupportedVersion(2))
        frame[0] = 0
        #expect(failure(frame) == .unsupportedVersion(0))
        #expect(WireError.unsupportedVersion(2).code == .unsupportedVersion)
    }

    @Test func everyUndefinedTypeIsUnknown() throws {
        for type in 0...UInt8.max where !Fixtures.typeCodes.contains(type) {
            #expect(failure(Fixtures.frame(type: type)) == .unknownMessageType(type))
        }
        #expect(WireError.unknownMessageType(0x7F).code == .unknownMessageType)
        // The defined bodiless types decode from a bare header; the others need their body.
        for type in Fixtures.typeCodes {
            let result = Result { () throws(WireError) in try MessageCodec.decode(Fixtures.frame(type: type)) }
            switch result {
            case .success(let envelope):
                let bodiless: [Message] = [
                    .ping, .ok, .listPending, .ageRange(.listPrompts), .ageRange(.requestRegulatoryFeatures),
                ]
                #expect(bodiless.contains(envelope.message))
            case .failure(let error):
                guard case .truncated = error else {
                    Issue.record("type \(type): \(error)")
                    continue
                }
            }
        }
    }

    @Test func unknownEnumValuesNameTheField() {
        let handleKind99 = Fixtures.frame(type: 0x05) { w in
            w.u32(1)
            w.u8(99)
            w.string("bob")
        }
        #expect(failure(handleKind99) == .unknownEnumValue(field: "handle.kind", value: 99))

        let role9 = Fixtures.frame(type: 0x81) { w in
            w.u8(1)
            w.u8(0)
            w.string("m")
            w.string("d")
            w.u8(9)
            w.u64(0)
        }
        #expect(failure(role9) == .unknownEnumValue(field: "welcome.role", value: 9))

        let bool2 = Fixtures.frame(type: 0xA0) { w in
            w.u8(0)
            w.u8(2)
        }
        #expect(failure(bool2) == .unknownEnumValue(field: "appWelcome.brokerConnected", value: 2))

        let presence7 = Fixtures.frame(type: 0xA0) { w in w.u8(7) }
        #expect(failure(presence7) == .unknownEnumValue(field: "appWelcome.memberID", value: 7))

        func askWithTopic(_ topic: UInt8, _ rest: (inout WireWriter) -> Void = { _ in }) -> [UInt8] {
            Fixtures.frame(type: 0x03) { w in
                w.string("com.example.chat")
                w.uuid(Fixtures.id1)
                w.u8(topic)
                rest(&w)
            }
        }
        #expect(failure(askWithTopic(3)) == .unknownEnumValue(field: "question.topic", value: 3))
        let action0 = askWithTopic(1) { w in
            w.u32(0)
            w.u32(1)
            w.u8(0)
        }
        #expect(failure(action0) == .unknownEnumValue(field: "topic.action", value: 0))
        let answer3 = askWithTopic(2) { w in
            w.string("update")
            w.u32(1)
            w.string("approve")
            w.string("Approve")
            w.u8(3)
        }
        #expect(failure(answer3) == .unknownEnumValue(field: "choice.answer", value: 3))

        let reason0 = Fixtures.frame(type: 0x84) { w in
            w.uuid(Fixtures.id1)
            w.choice(.approve)
            w.u8(0)
        }
        #expect(failure(reason0) == .unknownEnumValue(field: "resolution.reason", value: 0))

        let kind7 = Fixtures.frame(type: 0x90) { w in
            w.string("kid")
            w.u64(1)
            w.i64(0)
            w.u8(7)
        }
        #expect(failure(kind7) == .unknownEnumValue(field: "event.kind", value: 7))
    }

    @Test func invalidUTF8IsRefused() {
        let bundle = Fixtures.frame(type: 0x20) { w in Fixtures.rawString(&w, [0x63, 0xC3, 0x28]) }
        #expect(failure(bundle) == .invalidUTF8(field: "appHello.bundleID"))
        let choice = Fixtures.frame(type: 0x04) { w in
            w.uuid(Fixtures.id1)
            Fixtures.rawString(&w, [0xFF, 0xFE])
        }
        #expect(failure(choice) == .invalidUTF8(field: "answer.choiceID"))
        // A surrogate encoded in UTF-8 (CESU) is not valid UTF-8 either.
        let message = Fixtures.frame(type: 0xFF) { w in
            w.u16(8)
            Fixtures.rawString(&w, [0xED, 0xA0, 0x80])
        }
        #expect(failure(message) == .invalidUTF8(field: "error.message"))
        let handle = Fixtures.frame(type: 0x85) { w in
            w.u32(1)
            w.u8(1)
            Fixtures.rawString(&w, [0xC0, 0x80])
        }
        #expect(failure(handle) == .invalidUTF8(field: "handle.value"))
    }

    @Test func hugeDeclaredLengthsAreRefusedBeforeAllocating() {
        let string = Fixtures.frame(type: 0x20) { w in w.u32(.max) }
        #expect(failure(string) == .tooLong(field: "appHello.bundleID", length: Int(UInt32.max), max: 255))
        let message = Fixtures.frame(type: 0xFF) { w in
            w.u16(1)
            w.u32(5000)
        }
        #expect(failure(message) == .tooLong(field: "error.message", length: 5000, max: Wire.maxStringBytes))
        let shortString = Fixtures.frame(type: 0xFF) { w in
            w.u16(1)
            w.u32(4000)
            w.u8(0x41)
        }
        #expect(failure(shortString) == .truncated(field: "error.message"))
        let handles = Fixtures.frame(type: 0x05) { w in w.u32(.max) }
        #expect(failure(handles) == .tooLong(field: "knownHandles.handles", length: Int(UInt32.max), max: 1000))
        let pending = Fixtures.frame(type: 0xB0) { w in w.u32(9000) }
        #expect(failure(pending) == .truncated(field: "pendingList.questions"))
        let events = Fixtures.frame(type: 0x82) { w in
            w.u64(0)
            w.u32(.max)
        }
        #expect(
            failure(events)
                == .tooLong(field: "events.events", length: Int(UInt32.max), max: Int(Wire.maxEventsPerSync)))
        let bigAvatar = Fixtures.frame(type: 0x03) { w in
            w.string("app")
            w.uuid(Fixtures.id1)
            w.u8(1)
            w.u32(1)
            w.handle(Fixtures.dragon)
            w.u8(0)
            w.u8(1)
            w.u32(UInt32(Wire.maxAvatarBytes + 1))
        }
        #expect(
            failure(bigAvatar)
                == .tooLong(field: "person.avatarImage", length: Wire.maxAvatarBytes + 1, max: Wire.maxAvatarBytes))
        let oversized = [UInt8](repeating: 0, count: Wire.maxFrameSize + 1)
        #expect(failure(oversized) == .tooLong(field: "frame", length: Wire.maxFrameSize + 1, max: Wire.maxFrameSize))
    }

    @Test func trailingBytesAreRefused() {
        #expect(failure(MessageCodec.encode(.ping) + [0]) == .trailingBytes(count: 1))
        #expect(
            failure(MessageCodec.encode(.hello(minVersion: 1, maxVersion: 1)) + [1, 2, 3]) == .trailingBytes(count: 3))
        #expect(
            failure(MessageCodec.encode(.appResponse(inboxID: 1, Fixtures.askedFull, Fixtures.answered)) + [0])
                == .trailingBytes(count: 1))
    }

    /// A NUL would be cut off where handles are stored as SQLite TEXT (found by BrokerCommandFuzzer).
    @Test func handlesWithNULAreInvalidValues() {
        for value in ["\u{0}", "pal\u{0}", "\u{0}+44 20 7946 0958"] {
            let contact = Contact(handle: CommunicationHandle(value: value, kind: .phoneNumber))
            let frame = MessageCodec.encode(.editContacts(childID: "kid-1", add: [contact], remove: []))
            let refusal = WireError.invalidValue(field: "contact.handle.value", reason: "must not contain U+0000 (NUL)")
            #expect(failure(frame) == refusal)
        }
        #expect(
            failure(MessageCodec.encode(.knownHandles([CommunicationHandle(value: "a\u{0}b", kind: .custom)])))
                == .invalidValue(field: "handle.value", reason: "must not contain U+0000 (NUL)"))
    }

    @Test func forbiddenIdentifiersAreInvalidValues() {
        func welcome(member: String) -> [UInt8] {
            Fixtures.frame(type: 0x81) { w in
                w.u8(1)
                w.u8(0)
                w.string(member)
                w.string("device")
                w.u8(MemberRole.child.rawValue)
                w.u64(0)
            }
        }
        for bad in ["kid one", "kid/1", "", "ü", "kid\u{0}", "../etc"] {
            guard case .invalidValue(let field, _) = failure(welcome(member: bad)) else {
                Issue.record("member id \(bad.debugDescription) was not refused as invalid")
                continue
            }
            #expect(field == "welcome.memberID")
        }
        #expect(
            failure(welcome(member: String(repeating: "a", count: 65)))
                == .tooLong(field: "welcome.memberID", length: 65, max: 64))

        guard
            case .invalidValue(field: "appHello.bundleID", _) = failure(
                MessageCodec.encode(.appHello(bundleID: "com.example/chat")))
        else {
            Issue.record("a bundle id with / must be refused")
            return
        }
        guard
            case .invalidValue(field: "handle.value", _) = failure(
                MessageCodec.encode(.knownHandles([CommunicationHandle(value: "", kind: .custom)])))
        else {
            Issue.record("an empty handle must be refused")
            return
        }
        var badParent = Fixtures.answered
        badParent.answeredBy = "mum dad"
        guard
            case .invalidValue(field: "resolution.answeredBy", _) = failure(
                MessageCodec.encode(.answerAccepted(badParent)))
        else {
            Issue.record("a parent id with a space must be refused")
            return
        }
        var badChild = Fixtures.askedFull
        badChild.childMemberID = "kid#1"
        guard
            case .invalidValue(field: "asked.childMemberID", _) = failure(MessageCodec.encode(.pendingList([badChild])))
        else {
            Issue.record("a child id with # must be refused")
            return
        }
    }

    @Test func malformedFramesMapToMalformedMessage() {
        #expect(WireError.truncated(field: "x").code == .malformedMessage)
        #expect(WireError.invalidValue(field: "x", reason: "y").description == "x: y")
    }

    /// Seeded, so a failure reproduces; 2,000 mutations of valid frames must each decode or throw, never trap.
    @Test func randomMutationsNeverTrap() {
        var random = SplitMix64(seed: 0x4845_4152_5448)
        let corpus = Fixtures.messages.map { MessageCodec.encode($0, requestID: 5) }
        var decoded = 0
        var refused: [String: Int] = [:]
        for _ in 0..<2000 {
            var frame = corpus[Int(random.next() % UInt64(corpus.count))]
            for _ in 0..<(1 + random.next() % 3) { mutate(&frame, &random) }
            _ = MessageCodec.peekRequestID(frame)
            do {
                let envelope = try MessageCodec.decode(frame)
                _ = envelope.message.typeCode
                decoded += 1
            } catch {
                _ = error.description
                _ = error.code
                refused[String(describing: error).prefix(while: { $0 != "(" }).description, default: 0] += 1
            }
        }
        #expect(decoded + refused.values.reduce(0, +) == 2000)
        // The mutations reach past the header: several kinds of refusal occur.
        #expect(refused.count >= 4, "refusals: \(refused)")
    }

    private func mutate(_ frame: inout [UInt8], _ random: inout SplitMix64) {
        func index() -> Int { frame.isEmpty ? 0 : Int(random.next() % UInt64(frame.count)) }
        switch random.next() % 7 {
        case 0:
            if !frame.isEmpty { frame[index()] ^= UInt8(1 << (random.next() % 8)) }
        case 1:
            if !frame.isEmpty { frame[index()] = UInt8(truncatingIfNeeded: random.next()) }
        case 2: frame.insert(UInt8(truncatingIfNeeded: random.next()), at: frame.isEmpty ? 0 : index())
        case 3:
            if !frame.isEmpty { frame.remove(at: index()) }
        case 4: frame = Array(frame.prefix(index()))
        case 5:
            // A length or count field blown up: four 0xFF bytes.
            let start = index()
            for i in start..<min(start + 4, frame.count) { frame[i] = 0xFF }
        default:
            // A chunk repeated, as a confused peer might.
            let start = index()
            let chunk = frame[start..<min(start + 1 + Int(random.next() % 16), frame.count)]
            frame.insert(contentsOf: chunk, at: start)
        }
    }
}

/// A tiny deterministic generator (SplitMix64), so the mutation test is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
