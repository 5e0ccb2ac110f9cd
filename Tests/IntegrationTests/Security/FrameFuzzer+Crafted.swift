import Foundation
import HearthCore
import HearthProtocol

extension FrameFuzzer {
    /// Frames that each break one rule, for every command that has the field: invalid UTF-8, unknown enum values,
    /// huge lengths, out-of-range values, other versions, and every type code with an empty body.
    static func crafted(child: MemberID, questionID: UUID) -> [Case] {
        var crafter = Crafter(child: child, questionID: questionID)
        crafter.invalidUTF8()
        crafter.ageCommands()
        crafter.unknownEnumValues()
        crafter.hugeLengths()
        crafter.versionsAndTypes()
        return crafter.cases
    }

    /// Collects crafted cases, one family of broken rules at a time.
    struct Crafter {
        let child: MemberID
        let questionID: UUID
        let badUTF8: [UInt8] = [0x65, 0xC3, 0x28]
        let handle = CommunicationHandle(value: "pal", kind: .custom)
        var cases: [Case] = []

        init(child: MemberID, questionID: UUID) {
            self.child = child
            self.questionID = questionID
        }

        func frame(
            _ type: UInt8, version: UInt8 = Wire.version, _ body: (inout WireWriter) -> Void = { _ in }
        ) -> [UInt8] {
            var w = WireWriter()
            w.u8(version)
            w.u8(type)
            w.u64(1)
            body(&w)
            return w.bytes
        }

        mutating func add(_ mutation: String, _ bytes: [UInt8]) {
            cases.append(Case(frames: [bytes], mutation: mutation))
        }

        /// Invalid UTF-8 in each string a command carries.
        mutating func invalidUTF8() {
            add("ask.appBundleID UTF-8", frame(0x03) { $0.blob(badUTF8) })
            add(
                "answer.choiceID UTF-8",
                frame(0x04) { w in
                    w.uuid(questionID)
                    w.blob(badUTF8)
                })
            for type: UInt8 in [0x07, 0x08, 0x09, 0x0A, 0x0B] {
                add("childID UTF-8 (0x\(String(type, radix: 16)))", frame(type) { $0.blob(badUTF8) })
            }
            add(
                "knownHandles handle UTF-8",
                frame(0x05) { w in
                    w.u32(1)
                    w.u8(3)
                    w.blob(badUTF8)
                })
            add(
                "setPasscode.passcode UTF-8",
                frame(0x0B) { w in
                    w.string(child)
                    w.blob(badUTF8)
                })
            add(
                "approveInPerson.passcode UTF-8",
                frame(0x0C) { w in
                    w.uuid(questionID)
                    w.blob(badUTF8)
                })
            add(
                "editContacts contact UTF-8",
                frame(0x09) { w in
                    w.string(child)
                    w.u32(1)
                    w.u8(1)
                    w.blob(badUTF8)
                })
            add("adminRequest on ingress UTF-8", frame(0x50) { $0.blob(badUTF8) })
            for type: UInt8 in [0x40, 0x43, 0x44] {
                add("age app UTF-8 (0x\(String(type, radix: 16)))", frame(type) { $0.blob(badUTF8) })
            }
            add("ageSetSharing.memberID UTF-8", frame(0x41) { $0.blob(badUTF8) })
        }

        /// Declared Age Range commands: bad enum values, bad ids, too many gates.
        mutating func ageCommands() {
            for sharing: UInt8 in [0, 4, 0xFF] {
                add(
                    "ageSetSharing.sharing \(sharing)",
                    frame(0x41) { w in
                        w.string(child)
                        w.u8(sharing)
                    })
            }
            add(
                "ageAnswerPrompt.share 2",
                frame(0x42) { w in
                    w.uuid(questionID)
                    w.u8(2)
                })
            add(
                "ageRangeRequest.gates count 17",
                frame(0x40) { w in
                    w.string("com.example.chat")
                    w.u32(17)
                })
            for app in ["", "com example", "../app"] {
                add("ageClearCache.app \(app.debugDescription)", frame(0x43) { $0.string(app) })
            }
        }

        /// Unknown enum values in settings, handles, contacts and topics.
        mutating func unknownEnumValues() {
            func settings(
                enabled: UInt8 = 1, screenTime: UInt8 = 1, downtime: UInt8 = 1, presence: UInt8 = 0, editing: UInt8 = 0
            ) -> [UInt8] {
                frame(0x07) { w in
                    w.string(child)
                    for byte in [enabled, screenTime, downtime, presence] { w.u8(byte) }
                    if presence == 1 {
                        w.u16(0)
                        w.u16(60)
                    }
                    w.u8(editing)
                }
            }
            for value: UInt8 in [0, 5, 0xFF] {
                add("settings.screenTime \(value)", settings(screenTime: value))
                add("settings.downtime \(value)", settings(downtime: value))
            }
            add("settings.screenTime specificContacts", settings(screenTime: 4))
            add("settings.enabled 2", settings(enabled: 2))
            add("settings.allowContactEditing 7", settings(editing: 7))
            add("settings.downtimeSchedule presence 2", settings(presence: 2))
            add(
                "settings.downtimeSchedule minute 1440",
                frame(0x07) { w in
                    w.string(child)
                    for byte: UInt8 in [1, 1, 4, 1] { w.u8(byte) }
                    w.u16(1440)
                    w.u16(0)
                    w.u8(0)
                })
            for kind: UInt8 in [0, 4, 99, 0xFF] {
                add(
                    "handle.kind \(kind)",
                    frame(0x0A) { w in
                        w.string(child)
                        w.u32(1)
                        w.u8(kind)
                        w.string("pal")
                    })
            }
            add(
                "contact.allowedDuringDowntime 2",
                frame(0x09) { w in
                    w.string(child)
                    w.u32(1)
                    w.handle(handle)
                    w.u8(2)
                    w.u32(0)
                })
            for topic: UInt8 in [0, 3, 0xFF] {
                add(
                    "question.topic \(topic)",
                    frame(0x03) { w in
                        w.string("com.example.chat")
                        w.uuid(questionID)
                        w.u8(topic)
                    })
            }
        }

        /// Huge lengths and counts, and ids that break the id rule.
        mutating func hugeLengths() {
            for type: UInt8 in [0x03, 0x05, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x50, 0x40, 0x41, 0x43] {
                add("u32.max length (0x\(String(type, radix: 16)))", frame(type) { $0.u32(.max) })
            }
            add(
                "editContacts.add count u32.max",
                frame(0x09) { w in
                    w.string(child)
                    w.u32(.max)
                })
            add(
                "revokeApproval.handles count 1001",
                frame(0x0A) { w in
                    w.string(child)
                    w.u32(1001)
                })
            add(
                "setPasscode.passcode 65 bytes",
                frame(0x0B) { w in
                    w.string(child)
                    w.string(String(repeating: "9", count: 65))
                })
            for bad in ["", "emma/../alice", "emma alice", String(repeating: "e", count: 65)] {
                add("getLimits.childID \(bad.debugDescription)", frame(0x08) { $0.string(bad) })
            }
        }

        /// Other versions of a valid command; every type code with an empty body, and with trailing bytes;
        /// each valid command once, unmutated, so every command type is reached whatever the seed.
        mutating func versionsAndTypes() {
            for version: UInt8 in [0, 2, 0x80, 0xFF] { add("version \(version)", frame(0x06, version: version)) }
            for type in UInt8.min...UInt8.max {
                add("type 0x\(String(type, radix: 16)) empty", frame(type))
            }
            add("ping with trailing bytes", frame(0x06) { $0.u8(0) })
            for message in messages(child: child, questionID: questionID) where message.isBrokerCommand {
                add("valid \(message.type)", MessageCodec.encode(message, requestID: 1))
            }
        }
    }
}
