import BrokerCore
import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// The writer's hot reads and writes on its prepared statements: the same SQL and results as `BrokerStore`'s
/// functions of the same names, which serve the read connections.
extension WriterStatements {
    /// From memory when the writer stored it lately (`WrittenQuestions`), else from its row.
    func question(_ id: UUID, in db: Database) throws -> Stored.Question? {
        guard let entry = questions.entry(id) else { return try storedQuestion(id, in: db) }
        #if DEBUG
        // Debug builds (the tests) check each question answered from memory against its row.
        let row = try storedQuestion(id, in: db)
        assert(row == entry.question, "the writer's memory of question \(id) is not its row")
        #endif
        return entry.question
    }

    private func storedQuestion(_ id: UUID, in db: Database) throws -> Stored.Question? {
        try with(.questionByID, db) { query in
            query.bind(1, id.wireBytes)
            guard try query.step(), let asked = query.bytes(0) else { return nil }
            return try BrokerStore.decodeQuestion(askedBytes: asked, resolutionBytes: query.bytes(1))
        }
    }

    func pendingQuestion(
        child: MemberID, app: BundleID, handlesKey: String, now: Date, in db: Database
    ) throws -> Stored.Question? {
        try with(.pendingQuestion, db) { query in
            query.bind(1, child)
            query.bind(2, handlesKey)
            query.bind(3, Stored.milliseconds(now))
            while try query.step() {
                guard let asked = query.data(0) else { continue }
                let question = try BrokerStore.decodeQuestion(asked: asked, resolution: query.data(1))
                if question.asked.appBundleID == app { return question }
            }
            return nil
        }
    }

    func askCount(child: MemberID, since: Date, upTo limit: Int, in db: Database) throws -> Int {
        try askWindows.count(child: child, since: since, upTo: limit, in: db)
    }

    /// With its reminder in the same row when `remindAt` is given (pending questions only).
    func insert(_ asked: AskedQuestion, resolution: Resolution?, remindAt: Int64? = nil, in db: Database) throws {
        var w = WireWriter()
        w.askedQuestion(asked)
        try execute(remindAt == nil ? .insertQuestion : .insertRemindedQuestion, db) { query in
            query.bind(1, asked.question.id.wireBytes)
            query.bind(2, asked.childMemberID)
            query.bind(3, Stored.handlesKey(asked.question.handles))
            query.bind(4, Data(w.bytes))
            query.bind(5, asked.question.expirationDate.map(Stored.milliseconds))
            query.bind(6, Int64(resolution == nil ? 0 : 1))
            query.bind(7, resolution.map(BrokerStore.encodeResolution))
            query.bind(8, Stored.milliseconds(asked.askedAt))
            if let remindAt { query.bind(9, remindAt) }
        }
        askWindows.added(child: asked.childMemberID, at: asked.askedAt)
        // `num` is the rowid's alias.
        let num = lastInsertedRowID
        questions.added(.asRead(asked, resolution), num: num)
        if let remindAt { reminders.scheduled(asked.question.id, .init(at: remindAt, num: num)) }
    }

    /// By the row's number when the writer holds the question, without a lookup in the id's index.
    func resolve(_ id: UUID, with resolution: Resolution, in db: Database) throws {
        guard let num = questions.entry(id)?.num else {
            try execute(.resolveQuestion, db) { query in
                query.bind(1, BrokerStore.encodeResolution(resolution))
                query.bind(2, id.wireBytes)
            }
            return reminders.removed(id)
        }
        try execute(.resolveQuestionByNum, db) { query in
            query.bind(1, BrokerStore.encodeResolution(resolution))
            query.bind(2, num)
        }
        questions.resolved(id, with: Stored.Question.asRead(resolution))
        reminders.removed(id)
    }

    func knownHandles(
        of child: MemberID, among handles: [CommunicationHandle], in db: Database
    ) throws -> [CommunicationHandle] {
        try handles.filter { handle in
            try with(.knownHandle, db) { query in
                query.bind(1, child)
                query.bind(2, Int64(handle.kind.rawValue))
                query.bind(3, handle.value)
                return try query.step()
            }
        }
    }

    func addKnownHandles(
        _ handles: [CommunicationHandle], child: MemberID, question: UUID?, in db: Database
    ) throws -> [CommunicationHandle] {
        try handles.filter { handle in
            try with(.addKnownHandle, db) { query in
                query.bind(1, child)
                query.bind(2, Int64(handle.kind.rawValue))
                query.bind(3, handle.value)
                query.bind(4, question?.wireBytes)
                while try query.step() {}
                return query.changes > 0
            }
        }
    }

    func contactFlags(
        of child: MemberID, among handles: [CommunicationHandle], in db: Database
    ) throws -> [CommunicationHandle: Bool] {
        var flags: [CommunicationHandle: Bool] = [:]
        for handle in handles where flags[handle] == nil {
            try with(.contactDowntime, db) { query in
                query.bind(1, child)
                query.bind(2, Int64(handle.kind.rawValue))
                query.bind(3, handle.value)
                if try query.step() { flags[handle] = query.int64(0) != 0 }
            }
        }
        return flags
    }

    func settings(of child: MemberID, in db: Database) throws -> CommunicationSettings? {
        let data = try with(.settings, db) { query in
            query.bind(1, child)
            return try query.step() ? query.data(0) : nil
        }
        return try data.map(DecodedSettingsCache.shared.settings(from:))
    }

    /// `BrokerStore.appendEvent`'s rule from memory: the recent part's entries (`RecentEvents`) and the member's last
    /// sequence number in `event_index`, read once per member.
    func appendEvent(_ event: Event, body: ArraySlice<UInt8>, in db: Database) throws {
        try recentEvents.load(db)
        // Above the member's last recent entry (what the engine appends) is above its moved ones too: an entry is
        // stored above the moved head, which changes only with a move, which empties the recent part.
        let aboveRecent = recentEvents.last(of: event.memberID).map { event.sequence > $0 } ?? false
        if !aboveRecent {
            guard event.sequence > (try movedEventHead(of: event.memberID, in: db)),
                !recentEvents.contains(event.memberID, event.sequence)
            else { throw BrokerStore.sequenceAlreadyStored(event) }
        }
        try execute(.appendEvent, db) { query in
            query.bind(1, event.memberID)
            query.bind(2, Int64(event.sequence))
            query.bind(3, bytes: body)
        }
        recentEvents.added(member: event.memberID, sequence: event.sequence, position: lastInsertedRowID)
    }

    /// `BrokerStore.events`, with the recent part's positions from memory instead of a scan of the log's last rows.
    func events(of member: MemberID, after: UInt64, limit: Int, in db: Database) throws -> [Event] {
        try recentEvents.load(db)
        let recent = recentEvents.positions(of: member, after: after, limit: limit)
        return try BrokerStore.events(of: member, after: after, limit: limit, recent: recent, in: db)
    }

    private func movedEventHead(of member: MemberID, in db: Database) throws -> UInt64 {
        if let head = movedEventHeads[member] { return head }
        let head = try with(.movedEventHead, db) { query in
            query.bind(1, member)
            return try query.step() ? UInt64(clamping: query.int64(0)) : 0
        }
        movedEventHeads[member] = head
        return head
    }

    /// Moves the recent part into `event_index` once it holds `recentEventLimit` entries (at a transaction's start):
    /// the moved heads of its members are then their last entries there.
    func settleRecentEvents(in db: Database) throws {
        try recentEvents.load(db)
        guard recentEvents.count >= BrokerStore.recentEventLimit else { return }
        try BrokerStore.moveRecentEvents(in: db)
        for (member, head) in recentEvents.heads { movedEventHeads[member] = head }
        recentEvents.moved()
    }

    /// In the question's row, by its number when the writer holds it (then it is stored), without a lookup in the id's
    /// index; and in the writer's memory of the pending reminders.
    func scheduleReminder(_ question: UUID, at date: Date, in db: Database) throws {
        let at = Stored.milliseconds(date)
        if let entry = questions.entry(question) {
            try execute(.scheduleReminderByNum, db) { query in
                query.bind(1, entry.num)
                query.bind(2, at)
            }
            // Only a pending question's reminder is ever due (`BrokerStore.dueReminders`).
            guard entry.question.resolution == nil else { return }
            return reminders.scheduled(question, .init(at: at, num: entry.num))
        }
        let stored = try with(.scheduleReminder, db) { query in
            query.bind(1, question.wireBytes)
            query.bind(2, at)
            while try query.step() {}
            return query.changes > 0
        }
        guard stored else { throw BrokerStore.reminderWithoutQuestion(question) }
        // Seldom (the ask stores its question just before): the row's number is read with the others when needed.
        reminders.invalidate()
    }

    /// From the writer's memory of the pending reminders, read from the rows when unknown.
    func dueReminders(at now: Date, limit: Int, in db: Database) throws -> [UUID] {
        try reminders.load(db)
        #if DEBUG
        // Debug builds (the tests) check the memory against the rows.
        let due = reminders.due(at: Stored.milliseconds(now), limit: limit)
        let rows = try BrokerStore.dueReminders(at: now, limit: limit, in: db)
        assert(due == rows, "the writer's memory of the due reminders is not the rows'")
        return due
        #else
        return reminders.due(at: Stored.milliseconds(now), limit: limit)
        #endif
    }

    /// `BrokerStore.settleRecentHistory` with the rows counted by the writer (`UnsettledHistory`).
    func settleRecentHistory(in db: Database) throws {
        guard try unsettledHistory.count(db) >= BrokerStore.recentHistoryLimit else { return }
        try BrokerStore.settleHistory(in: db)
        unsettledHistory.settled()
    }

    /// One history row per answer and per settings change: on the answer's hot path. Returns the row's id.
    func appendHistory(_ entry: HistoryEntry, family: FamilyID, in db: Database) throws -> UInt64 {
        try execute(.appendHistory, db) { query in
            query.bind(1, family)
            query.bind(2, entry.childMemberID)
            query.bind(3, Stored.milliseconds(entry.recordedAt))
            query.bind(4, Stored.encodedHistoryBody(entry))
        }
        unsettledHistory.added()
        return UInt64(lastInsertedRowID)
    }
}
