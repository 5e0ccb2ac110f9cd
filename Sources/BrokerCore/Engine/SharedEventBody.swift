import HearthCore
import HearthProtocol

/// An event's body encoded once for every member it goes to: a question's child and each of its parents get the same
/// `questionPending` or `questionResolved`, and encoding the question was done once per member.
struct SharedEventBody {
    let body: Event.Body
    /// `WireWriter.eventBody(body)`.
    let encoded: [UInt8]

    init(_ body: Event.Body) {
        self.body = body
        var w = WireWriter(capacity: 512)
        w.eventBody(body)
        encoded = w.bytes
    }
}
