import HearthCore
import Testing

/// A handle as a person types it, the one rule of hearthctl and hearth-fleet's scenarios: each kind in both spellings,
/// what hearthctl prints read back, a phone number only in E.164 form, an email address only if it looks like one.
struct CommunicationHandleTextTests {
    @Test(arguments: [
        ("phone:+15551234567", CommunicationHandle(value: "+15551234567", kind: .phoneNumber)),
        ("phoneNumber:+15551234567", CommunicationHandle(value: "+15551234567", kind: .phoneNumber)),
        ("email:sam@example.com", CommunicationHandle(value: "sam@example.com", kind: .emailAddress)),
        ("emailAddress:sam@example.com", CommunicationHandle(value: "sam@example.com", kind: .emailAddress)),
        ("custom:dragon:slayer", CommunicationHandle(value: "dragon:slayer", kind: .custom)),
    ])
    func eachKindInEachSpellingParses(text: String, handle: CommunicationHandle) throws {
        #expect(try CommunicationHandle(parsing: text) == handle)
        #expect(try CommunicationHandle(parsing: handle.description) == handle, "what is printed reads back")
    }

    @Test(arguments: [
        ("phone:555-1234", HandleTextError.notPhoneNumber("555-1234")),
        ("phoneNumber:+1 555 123 4567", .notPhoneNumber("+1 555 123 4567")),
        ("phone:+1234567", .notPhoneNumber("+1234567")),
        ("phone:+0123456789", .notPhoneNumber("+0123456789")),
        ("phone:+1234567890123456", .notPhoneNumber("+1234567890123456")),
        ("email:notanemail", .notEmailAddress("notanemail")),
        ("email:sam@localhost", .notEmailAddress("sam@localhost")),
        ("email:sam@@example.com", .notEmailAddress("sam@@example.com")),
        ("email:sam@example..com", .notEmailAddress("sam@example..com")),
        ("email:sam smith@example.com", .notEmailAddress("sam smith@example.com")),
        ("mobile:+15551234567", .unknownKind("mobile", in: "mobile:+15551234567")),
        ("sam", .notKindAndValue("sam")),
        ("custom:", .emptyValue("custom:")),
    ])
    func aBadHandleIsRefusedByItsValue(text: String, error: HandleTextError) {
        #expect(throws: error) { try CommunicationHandle(parsing: text) }
    }

    @Test func bareTextIsACustomHandleWhenAllowed() throws {
        #expect(
            try CommunicationHandle(parsing: "pal", bareIsCustom: true)
                == CommunicationHandle(value: "pal", kind: .custom))
        let unknown = try CommunicationHandle(parsing: "mobile:x", bareIsCustom: true)
        #expect(unknown == CommunicationHandle(value: "mobile:x", kind: .custom))
        #expect(throws: HandleTextError.notPhoneNumber("555-1234")) {
            try CommunicationHandle(parsing: "phone:555-1234", bareIsCustom: true)
        }
        #expect(throws: HandleTextError.notKindAndValue("")) {
            try CommunicationHandle(parsing: "", bareIsCustom: true)
        }
    }

    @Test func theMessagesSayWhatToWrite() {
        #expect(
            HandleTextError.notPhoneNumber("555-1234").description
                == "'555-1234' is not a phone number in E.164 form: + then 8 to 15 digits, no spaces or dashes, "
                + "e.g. phone:+15551234567")
        #expect(
            HandleTextError.unknownKind("mobile", in: "mobile:1").description
                == "'mobile' in 'mobile:1' is not a kind: use phone: (or phoneNumber:), email: (or emailAddress:) "
                + "or custom:")
    }
}
