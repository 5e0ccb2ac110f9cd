public import Foundation
public import HearthCore

extension WireWriter {
    public mutating func handle(_ h: CommunicationHandle) {
        u8(h.kind.rawValue)
        string(h.value)
    }

    public mutating func person(_ p: PersonInformation) {
        handle(p.handle)
        optional(p.nameComponents) { w, n in
            w.optional(n.givenName) { $0.string($1) }
            w.optional(n.middleName) { $0.string($1) }
            w.optional(n.familyName) { $0.string($1) }
            w.optional(n.nickname) { $0.string($1) }
        }
        optional(p.avatarImage) { $0.blob($1) }
    }

    public mutating func choice(_ c: PermissionChoice) {
        string(c.id)
        string(c.title)
        u8(c.answer.rawValue)
    }

    public mutating func question(_ q: Question) {
        uuid(q.id)
        switch q.topic {
        case .communication(let topic):
            u8(1)
            array(topic.personInformation) { $0.person($1) }
            array(topic.actions.map(\.rawValue).sorted()) { $0.u8($1) }
        case .significantAppUpdate(let description):
            u8(2)
            string(description)
        }
        array(q.choices) { $0.choice($1) }
        string(q.defaultChoiceID)
        optional(q.expirationDate) { $0.date($1) }
        optional(q.note) { $0.string($1) }
    }

    public mutating func askedQuestion(_ a: AskedQuestion) {
        question(a.question)
        string(a.childMemberID)
        string(a.appBundleID)
        string(a.askingDeviceID)
        date(a.askedAt)
    }

    public mutating func resolution(_ r: Resolution) {
        uuid(r.questionID)
        choice(r.choice)
        u8(r.reason.rawValue)
        optional(r.answeredBy) { $0.string($1) }
        date(r.resolvedAt)
        optional(r.message) { $0.string($1) }
    }

    public mutating func event(_ e: Event) {
        eventHead(member: e.memberID, sequence: e.sequence, createdAt: e.createdAt)
        eventBody(e.body)
    }

    /// What precedes an event's body: its member, sequence number and time.
    public mutating func eventHead(member: MemberID, sequence: UInt64, createdAt: Date) {
        string(member)
        u64(sequence)
        date(createdAt)
    }

    /// An event's kind and contents, the same for every member it goes to.
    public mutating func eventBody(_ body: Event.Body) {
        switch body {
        case .questionPending(let asked):
            u8(1)
            askedQuestion(asked)
        case .questionResolved(let asked, let resolution):
            u8(2)
            askedQuestion(asked)
            self.resolution(resolution)
        case .questionReminder(let asked):
            u8(5)
            askedQuestion(asked)
        case .handlesChanged(let added, let removed):
            u8(3)
            array(added) { $0.handle($1) }
            array(removed) { $0.handle($1) }
        case .historyRecorded(let entry):
            u8(6)
            historyEntry(entry)
        case .ageRange(let ageRangeEvent):
            self.ageRangeEvent(ageRangeEvent)
        case .omitted(let kind, let reason):
            u8(4)
            u8(kind)
            string(reason)
        }
    }
}
