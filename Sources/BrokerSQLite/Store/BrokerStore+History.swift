public import Foundation
import GRDB
import HearthCore
import HearthProtocol

extension BrokerStore {
    /// Writes an answered-question history for families `f0…` (organizer `p<n>`, child `c<n>`), as the broker would
    /// have stored it, for start-up and memory benchmarks. Returns the number of events written.
    public func appendHistory(families: Int, questionsPerChild: Int, at now: Date = Date()) async throws -> Int {
        var written = 0
        let chunk = 500
        for start in stride(from: 0, to: families, by: chunk) {
            let end = min(start + chunk, families)
            written += try await pool.write { [self] db in
                writerStatements.withLock { $0.forgetMemory() }
                var count = 0
                for f in start..<end {
                    let child = "c\(f)"
                    let parent = "p\(f)"
                    // Each member's log after its last stored event: checked once per member, not per event (a
                    // check reads the log's recent part).
                    var heads = [
                        child: try Self.lastSequence(of: child, in: db),
                        parent: try Self.lastSequence(of: parent, in: db),
                    ]
                    func append(_ body: Event.Body, to member: MemberID) throws {
                        heads[member, default: 0] += 1
                        let event = Event(memberID: member, sequence: heads[member]!, createdAt: now, body: body)
                        try Self.insertEvent(
                            event, body: Event.storedBody(ofFrame: event.publicationFrame().frame), in: db)
                        count += 1
                    }
                    for q in 0..<questionsPerChild {
                        let handle = CommunicationHandle(value: "friend-\(f)-\(q)", kind: .custom)
                        let question = Question(
                            topic: .communication(
                                CommunicationTopic(
                                    personInformation: [PersonInformation(handle: handle)], actions: [.message])))
                        let asked = AskedQuestion(
                            question: question, childMemberID: child, appBundleID: "com.example.chat",
                            askingDeviceID: "cd\(f)", askedAt: now)
                        let resolution = Resolution(
                            questionID: question.id, choice: .approve, reason: .parentAnswered, answeredBy: parent,
                            resolvedAt: now)
                        try Self.insert(asked, resolution: resolution, in: db)
                        _ = try Self.addKnownHandles([handle], child: child, question: question.id, in: db)
                        try append(.questionPending(asked), to: child)
                        try append(.questionPending(asked), to: parent)
                        try append(.questionResolved(asked, resolution), to: child)
                        try append(.handlesChanged(added: [handle], removed: []), to: child)
                        try append(.questionResolved(asked, resolution), to: parent)
                    }
                    // As the broker does: the recent part, which the next family's checks read, stays small.
                    try Self.settleRecentEvents(in: db)
                }
                try Self.settleRecentEvents(atLeast: 1, in: db)
                try Self.settleRecentKnownHandles(atLeast: 1, in: db)
                return count
            }
        }
        return written
    }
}
