import Foundation
import HearthCore
import HearthProtocol

extension Transaction {
    // MARK: ask

    mutating func ask(
        _ question: Question, app: BundleID, child: Directory.Member, device: DeviceID
    ) throws -> BrokerReply {
        guard isChild(child) else {
            throw ErrorReply(
                .notAvailable, "only a child asks; \(child.id) is \(directory.effectiveRole(child, on: now).name)")
        }
        guard Identifier.isValidBundleID(app) else {
            throw ErrorReply(.invalidQuestion, "appBundleID '\(app)' is not a bundle id")
        }
        let limit = policy.childDefaults.askLimit
        let since = now.addingTimeInterval(-Double(limit.perSeconds))
        store.willCheckAsk(
            question.id, child: child.id, handles: question.handles, since: since, limit: limit.count, now: now)
        if let existing = try store.question(question.id) {
            // A retry of the same ask (after a crash or a lost reply) has one effect: the first, even once expired.
            guard existing.asked.childMemberID == child.id else {
                throw ErrorReply(.invalidQuestion, "question id \(question.id) is already used")
            }
            return .askAccepted(existing.asked, existing.resolution)
        }
        try validate(question)
        if let violation = QuestionBudget.check(question) { throw ErrorReply(.questionTooLarge, violation.description) }
        let recent = try store.askCount(child: child.id, since: since, upTo: limit.count)
        guard recent < limit.count else {
            throw ErrorReply(
                .rateLimited,
                "\(child.id) reached its ask limit: at most \(limit.count) questions in \(limit.perSeconds) s are allowed, ask again later"
            )
        }
        var asked = AskedQuestion(
            question: question, childMemberID: child.id, appBundleID: app, askingDeviceID: device, askedAt: now)
        let settings = try settings(of: child)

        if child.familyID == nil {
            return try resolveAtOnce(asked, choice: question.defaultChoice!, reason: .defaultNoFamily)
        }
        // Communication Limits govern whom the child talks to. A significant change of an app is the parents' call
        // whatever the limits (their consent is what the region's law asks for): it goes to them.
        if !settings.enabled, case .communication = question.topic {
            return try resolveAtOnce(asked, choice: question.defaultChoice!, reason: .defaultLimitsOff)
        }
        let handles = question.handles
        if !handles.isEmpty {
            let known = try knownHandles(of: child, among: handles, settings: settings)
            // None known, the usual case: no sets to build.
            if !known.isEmpty, Set(known) == Set(handles) {
                let approval = question.choices.first { $0.answer == .approval }!
                return try resolveAtOnce(asked, choice: approval, reason: .alreadyKnown)
            }
        }
        if !handles.isEmpty,
            let pending = try store.pendingQuestion(child: child.id, app: app, handles: handles, now: now)
        {
            // Parents are not asked twice about the same people by the same app: the app gets the pending question.
            return .askAccepted(pending.asked, nil)
        }
        let remindAt = giveLifetime(&asked, family: child.familyID)
        try store.insert(asked, remindAt: remindAt)
        let pending = SharedEventBody(.questionPending(asked))
        try publish(pending, to: child.id)
        for parent in directory.parents(of: child.familyID) {
            try publish(pending, to: parent)
        }
        return .askAccepted(asked, nil)
    }

    private func validate(_ question: Question) throws {
        func invalid(_ reason: String) -> ErrorReply { ErrorReply(.invalidQuestion, reason) }
        switch question.topic {
        case .communication(let topic):
            guard !topic.personInformation.isEmpty else {
                throw invalid("a communication question names at least one person")
            }
        case .significantAppUpdate(let description):
            guard !description.isEmpty else { throw invalid("a significant app update question needs a description") }
        }
        let ids = question.choices.map(\.id)
        guard Set(ids).count == ids.count else { throw invalid("choice ids must be unique") }
        guard question.choices.contains(where: { $0.answer == .approval }),
            question.choices.contains(where: { $0.answer == .denial })
        else { throw invalid("choices must include at least one approval and one denial") }
        guard question.defaultChoice != nil else {
            throw invalid("defaultChoiceID '\(question.defaultChoiceID)' is not one of the choices")
        }
        if let expiration = question.expirationDate, expiration <= now {
            throw invalid("expirationDate is in the past")
        }
        // Every text the app controls reaches a parent: handles, names, choices, the description, the note.
        if let violation = ShortText.violation(in: question) {
            throw ErrorReply(.invalidText, violation.description)
        }
        // A parent decides from a choice's answer: a choice titled "Decline" that approves would deceive them.
        if let violation = PermissionChoice.impersonation(in: question.choices) {
            throw ErrorReply(.misleadingChoice, violation.description)
        }
    }

    private mutating func resolveAtOnce(
        _ asked: AskedQuestion, choice: PermissionChoice, reason: Resolution.Reason
    ) throws -> BrokerReply {
        let resolution = Resolution(
            questionID: asked.question.id, choice: choice, reason: reason, answeredBy: nil, resolvedAt: now)
        try store.insert(asked, resolution: resolution)
        // Through the child's log, so every device of the child hands the app its response, as for a parent's answer.
        try publish(.questionResolved(asked, resolution), to: asked.childMemberID)
        return .askAccepted(asked, resolution)
    }

    // MARK: answer

    mutating func answer(
        _ questionID: UUID, choiceID: String, message: String?, parent: Directory.Member
    ) throws -> BrokerReply {
        guard parent.role.isParent else {
            throw ErrorReply(
                .notAuthorized,
                "only an organizer or guardian answers; \(parent.id) is \(directory.effectiveRole(parent, on: now).name)"
            )
        }
        let (stored, child) = try pendingQuestion(questionID, family: parent.familyID)
        if let message, let violation = ShortText.violation(in: message, field: "answer.message") {
            throw ErrorReply(.invalidText, violation.description)
        }
        if let resolution = stored.resolution {
            if resolution.answeredBy == parent.id, resolution.choice.id == choiceID {
                return .answerAccepted(resolution)  // the same parent retrying: one effect
            }
            throw alreadyAnswered(questionID, resolution)
        }
        let asked = stored.asked
        if let expiration = asked.question.expirationDate, expiration <= now {
            throw ErrorReply(.expired, "question \(questionID) expired at \(expiration)")
        }
        guard let choice = asked.question.choices.first(where: { $0.id == choiceID }) else {
            throw ErrorReply(
                .invalidChoice,
                "'\(choiceID)' is not a choice of question \(questionID); choices: \(asked.question.choices.map(\.id).joined(separator: ", "))"
            )
        }
        let resolution = Resolution(
            questionID: questionID, choice: choice, reason: .parentAnswered, answeredBy: parent.id, resolvedAt: now,
            message: message)
        try record(resolution, of: asked, child: child)
        return .answerAccepted(resolution)
    }

    /// The question and its child, when the child is in `family`; the same `notFound` otherwise, so that a parent of another
    /// family learns nothing about it.
    private func pendingQuestion(_ questionID: UUID, family: FamilyID?) throws -> (Stored.Question, Directory.Member) {
        guard let stored = try store.question(questionID),
            let child = directory.members[stored.asked.childMemberID], child.familyID != nil, child.familyID == family
        else {
            throw ErrorReply(.notFound, "no question \(questionID)")
        }
        return (stored, child)
    }

    /// The error for answering a question that is closed: `withdrawn` or `expired` when that is why, else
    /// `alreadyAnswered` naming who answered.
    func alreadyAnswered(_ questionID: UUID, _ resolution: Resolution) -> ErrorReply {
        let at = resolution.resolvedAt.formatted(.iso8601)
        switch resolution.reason {
        case .withdrawn:
            return ErrorReply(.withdrawn, "question \(questionID) was withdrawn by the child's app at \(at)")
        case .expired:
            return ErrorReply(.expired, "question \(questionID) expired unanswered at \(at)")
        default:
            break
        }
        let by = resolution.answeredBy.map { "by \($0)" } ?? "(\(resolution.reason))"
        return ErrorReply(
            .alreadyAnswered, "question \(questionID) was already answered \(by): \(resolution.choice.id)")
    }

    private mutating func record(_ resolution: Resolution, of asked: AskedQuestion, child: Directory.Member) throws {
        let approved = resolution.choice.answer == .approval ? asked.question.handles : []
        let added = try store.resolve(asked.question.id, with: resolution, approving: approved, child: child.id)
        try recordHistory(
            HistoryEntry(asked: asked, resolution: resolution, deviceID: commandDevice), family: child.familyID)
        let resolved = SharedEventBody(.questionResolved(asked, resolution))
        try publish(resolved, to: child.id)
        if !added.isEmpty { try publish(.handlesChanged(added: added, removed: []), to: child.id) }
        for parent in directory.parents(of: child.familyID) {
            try publish(resolved, to: parent)
        }
    }

    // MARK: answer in person

    /// A parent types the Screen Time passcode on the child's device: the question is approved (`approve`) or
    /// declined at once. Wrong passcodes are counted and lock answering in person, either way, for a growing time; the
    /// count is kept even though the reply is an error.
    mutating func answerInPerson(
        _ questionID: UUID, approve: Bool, caller: Directory.Member
    ) throws -> CommandOutcome {
        let (stored, child) = try pendingQuestion(questionID, family: caller.familyID)
        guard caller.id == child.id else {
            throw ErrorReply(.notAuthorized, "the passcode is typed on the device of the child who asked")
        }
        if let resolution = stored.resolution { throw alreadyAnswered(questionID, resolution) }
        if let expiration = stored.asked.question.expirationDate, expiration <= now {
            throw ErrorReply(.expired, "question \(questionID) expired at \(expiration)")
        }
        guard var row = try store.passcode(of: child.id) else {
            throw ErrorReply(.wrongPasscode, "no Screen Time passcode is set for \(child.id); a parent sets one first")
        }
        if row.lockedUntil > now {
            return .failure(
                ErrorReply(
                    .lockedOut,
                    "too many wrong passcodes; try again after \(ISO8601DateFormatter().string(from: row.lockedUntil))")
            )
        }
        guard case .checked(let checkedHash, let matches)? = secrets[commandIndex], checkedHash == row.hash else {
            throw ErrorReply(.internalError, "the passcode changed while it was being checked; try again")
        }
        guard matches else {
            row.failures += 1
            let lockout = policy.lockout(afterFailures: row.failures)
            row.lockedUntil = now.addingTimeInterval(Double(lockout))
            try store.savePasscode(row, of: child.id)
            // Returned, not thrown: the failure count must be committed.
            if lockout > 0 {
                return .failure(
                    ErrorReply(.lockedOut, "wrong passcode; answering in person is locked for \(lockout) s"))
            }
            return .failure(
                ErrorReply(
                    .wrongPasscode,
                    "wrong passcode; \(policy.passcodeAttempts - row.failures) attempts left before a lockout"))
        }
        row.failures = 0
        row.lockedUntil = .distantPast
        try store.savePasscode(row, of: child.id)
        let asked = stored.asked
        // A question always has one approval and one denial choice (`Question`'s validation).
        let choice = asked.question.choices.first { $0.answer == (approve ? .approval : .denial) }!
        let resolution = Resolution(
            questionID: questionID, choice: choice, reason: approve ? .approvedInPerson : .declinedInPerson,
            answeredBy: nil, resolvedAt: now)
        try record(resolution, of: asked, child: child)
        return .success(.answerAccepted(resolution))
    }

    // MARK: expiry

    /// Resolves pending questions past their expiration date with their default choice.
    mutating func expireQuestions() throws {
        try sendReminders()
        for stored in try store.expiredPendingQuestions(now: now, limit: 1000) {
            let family = directory.members[stored.asked.childMemberID]?.familyID
            // On a cluster, another broker's partitions are its own sweep's.
            guard mayWrite(family) else { continue }
            try resolveWithDefault(stored, reason: .expired, family: family, parents: directory.parents(of: family))
        }
    }
}
