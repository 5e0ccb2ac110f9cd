import HearthCore
import Testing

/// A handle's text (in history summaries and notifications) names its kind without reflection: the same text.
struct CommunicationHandleNameTests {
    @Test(arguments: CommunicationHandle.Kind.allCases)
    func aKindsNameIsItsCaseName(_ kind: CommunicationHandle.Kind) {
        #expect(kind.name == String(describing: kind))
        #expect(CommunicationHandle(value: "bob", kind: kind).description == "\(kind.name):bob")
    }
}
