import Foundation
import HearthCore
import HearthProtocol

/// Declared Age Range commands. The birth date never leaves this file's functions: replies and events carry ranges.
extension Transaction {
    mutating func handleAgeRange(_ command: BrokerCommand, member: Directory.Member) throws -> BrokerReply {
        switch command {
        case .requestAgeRange(let app, let gates):
            return try requestAgeRange(app: app, gates: gates, member: member)
        case .setAgeSharing(let target, let setting):
            return try setAgeSharing(setting, of: target, by: member)
        case .answerAgePrompt(let id, let share):
            return try answerAgePrompt(id, share: share, member: member)
        case .clearAgeCache(let app):
            return .ageCacheCleared(app: app, existed: try store.clearAgeCache(member.id, app: app))
        case .regulatoryFeatures:
            // Minors by the region's age of majority, birth date or not: a child in a family is a minor either way.
            let features = directory.rules.regulatoryFeatures(in: member.region)
            return .regulatoryFeatures(features.applying(toMinor: isChild(member)))
        case .acknowledgeUpdate(let app, let description):
            try acknowledgeUpdate(app: app, description: description, member: member)
            return .ok
        default:
            // `Transaction.handle` routes every other command; reaching here is a bug, not a peer's doing.
            throw ErrorReply(.internalError, "the broker has no handler for \(command)")
        }
    }

    // MARK: request

    private mutating func requestAgeRange(app: BundleID, gates: [Int], member: Directory.Member) throws -> BrokerReply {
        do {
            try AgeRangeRules.validate(gates)
        } catch {
            throw ErrorReply(.invalidAgeRequest, error.description)
        }
        let subject = try ageRangeSubject(member)
        guard subject.birthDate != nil else {
            throw ErrorReply(
                .ageNotDeclared, "\(member.id) has no birth date on record, so there is no age range to share")
        }
        let setting = try store.ageSharing(of: member.id) ?? .default
        if setting == .never { return .ageRange(app: app, .declined(.neverShare)) }

        let today = subject.day(of: now)
        let cached = try store.ageCache(member.id, app: app)
        let firstDay = cached?.firstDay ?? today
        // New information appears only on an anniversary of the first declaration: the range is the one of that day.
        let period = AgeRangeRules.lastAnniversary(of: firstDay, onOrBefore: today)
        let range = subject.range(on: period, gates: gates)!

        if let cached {
            switch cached.answer {
            case .sharing(let shared) where shared == range:
                if cached.periodDay != period || cached.gates != gates {
                    try remember(
                        .sharing(range), app: app, gates: gates, firstDay: firstDay, period: period, subject: subject)
                }
                return .ageRange(app: app, .sharing(range))
            case .declined where setting == .askFirst && cached.periodDay == period:
                // The user said no for this period: no new prompt before the next anniversary.
                return .ageRange(app: app, .declined(.userDeclined))
            default:
                break
            }
        }
        switch setting {
        case .always:
            try reveal(.sharing(range), app: app, gates: gates, firstDay: firstDay, period: period, subject: subject)
            return .ageRange(app: app, .sharing(range))
        default:
            let prompt = try openPrompt(app: app, gates: gates, range: range, member: member.id)
            let remaining = max(0, prompt.expiresAt.timeIntervalSince(now))
            return .agePrompted(
                id: prompt.id, app: app, timeoutMilliseconds: UInt32(clamping: Int((remaining * 1000).rounded())))
        }
    }

    /// Stores the answer for (member, app) and tells the member's devices, which pass it to the app's watchers.
    private mutating func reveal(
        _ answer: AgeRangeAnswer, app: BundleID, gates: [Int], firstDay: BirthDate, period: BirthDate,
        subject: AgeRangeSubject
    ) throws {
        try remember(answer, app: app, gates: gates, firstDay: firstDay, period: period, subject: subject)
        // Kept with how the age was established: a device below version 3 gets who declared, in a sync's reply and
        // on the topic of a member with such a device (`BrokerFrames.forReaders`).
        try publish(.ageRange(.answerChanged(app: app, answer)), to: subject.id)
    }

    private func remember(
        _ answer: AgeRangeAnswer, app: BundleID, gates: [Int], firstDay: BirthDate, period: BirthDate,
        subject: AgeRangeSubject
    ) throws {
        let next = AgeRangeRules.nextAnniversary(of: firstDay, after: period).start(in: subject.timeZone)
        try store.saveAgeCache(
            .init(
                memberID: subject.id, app: app, firstDay: firstDay, periodDay: period, gates: gates, answer: answer,
                nextReview: next))
    }

    /// The open prompt asking the same thing, or a new one on the member's devices.
    private mutating func openPrompt(
        app: BundleID, gates: [Int], range: DeclaredRange, member: MemberID
    ) throws -> AgePrompt {
        if let open = try store.openAgePrompts(member, app: app, now: now).first(where: { $0.range == range }) {
            return open  // an app asking again while the user decides gets the same prompt, not a second one
        }
        let prompt = AgePrompt(
            id: UUID(), memberID: member, app: app, gates: gates, range: range, createdAt: now,
            expiresAt: now.addingTimeInterval(policy.agePromptTimeoutSeconds))
        try store.insertAgePrompt(prompt)
        var published = prompt
        published.range.declaration = prompt.range.declaration.v1Equivalent  // as in every event: who declared
        try publish(.ageRange(.promptOpened(published)), to: member)
        return prompt
    }

    // MARK: prompts

    private mutating func answerAgePrompt(_ id: UUID, share: Bool, member: Directory.Member) throws -> BrokerReply {
        // Someone else's prompt gets the same reply as a missing one: it reveals nothing.
        guard let (prompt, status) = try store.agePrompt(id), prompt.memberID == member.id else {
            throw ErrorReply(.notFound, "no age range prompt \(id)")
        }
        switch status {
        case .open: break
        case .shared, .declined:
            throw ErrorReply(
                .alreadyAnswered,
                "age range prompt \(id) was already answered: \(status == .shared ? "share" : "decline")")
        case .expired:
            throw ErrorReply(.expired, "age range prompt \(id) expired at \(prompt.expiresAt)")
        }
        guard prompt.expiresAt > now else {
            // The sweep closes it and tells the devices; this reply changes nothing.
            throw ErrorReply(.expired, "age range prompt \(id) expired at \(prompt.expiresAt)")
        }
        let subject = try ageRangeSubject(member)
        let today = subject.day(of: now)
        let firstDay = try store.ageCache(member.id, app: prompt.app)?.firstDay ?? today
        let period = AgeRangeRules.lastAnniversary(of: firstDay, onOrBefore: today)
        let answer: AgeRangeAnswer = share ? .sharing(prompt.range) : .declined(.userDeclined)
        try store.closeAgePrompt(id, status: share ? .shared : .declined)
        try publish(.ageRange(.promptClosed(id: id, app: prompt.app, answer)), to: member.id)
        try reveal(answer, app: prompt.app, gates: prompt.gates, firstDay: firstDay, period: period, subject: subject)
        return .agePromptAnswered(id: id, answer)
    }

    private mutating func expire(_ prompt: AgePrompt) throws {
        try store.closeAgePrompt(prompt.id, status: .expired)
        try publish(
            .ageRange(.promptClosed(id: prompt.id, app: prompt.app, .declined(.promptTimedOut))), to: prompt.memberID)
    }

    // MARK: settings

    private mutating func setAgeSharing(
        _ setting: AgeSharing, of target: MemberID, by caller: Directory.Member
    ) throws -> BrokerReply {
        // A stranger (not the member, not of its family) gets one answer whether or not the member exists.
        guard let member = directory.members[target],
            caller.id == target || (caller.familyID != nil && caller.familyID == member.familyID)
        else { throw ErrorReply(.notFound, "no member \(target) in your family") }
        let subject = try ageRangeSubject(member)
        if subject.isChild {
            guard caller.role.isParent, caller.familyID != nil, caller.familyID == member.familyID else {
                throw ErrorReply(
                    .notAuthorized,
                    "only an organizer or guardian of \(target)'s family sets a child's age range sharing")
            }
        } else {
            guard caller.id == target else {
                throw ErrorReply(
                    .notAuthorized, "an adult sets their own age range sharing; \(caller.id) cannot set \(target)'s")
            }
        }
        if subject.isChild {
            let old = try store.ageSharing(of: target) ?? .default
            try recordHistory(
                .ageSharingChanged(
                    child: target, at: now, by: caller.id, device: commandDevice, from: old, to: setting),
                family: member.familyID)
        }
        try store.setAgeSharing(setting, of: target, by: caller.id, at: now)
        return .ageSharingSet(member: target, setting)
    }

    // MARK: maintenance

    /// Closes expired prompts and reveals anniversaries' new information under Always Share, so watchers learn of
    /// it without asking. Run by the broker's sweeper, in a transaction of its own.
    mutating func maintainAgeRanges() throws {
        for prompt in try store.expiredAgePrompts(at: now) where mayWrite(member: prompt.memberID) {
            try expire(prompt)
        }
        for entry in try store.ageCacheDue(at: now) where mayWrite(member: entry.memberID) { try review(entry) }
    }

    /// The member as Declared Age Range sees them today.
    private func ageRangeSubject(_ member: Directory.Member) throws -> AgeRangeSubject {
        let limits =
            isChild(member) && member.familyID != nil ? try settings(of: member).enabled : false
        return AgeRangeSubject(member, directory: directory, on: now, limitsEnabled: limits)
    }

    /// An anniversary came for (member, app).
    private mutating func review(_ entry: Stored.AgeCache) throws {
        guard let member = directory.members[entry.memberID] else {
            _ = try store.clearAgeCache(entry.memberID, app: entry.app)
            return
        }
        let subject = try ageRangeSubject(member)
        let period = AgeRangeRules.lastAnniversary(of: entry.firstDay, onOrBefore: subject.day(of: now))
        let setting = try store.ageSharing(of: member.id) ?? .default
        if setting == .always, case .sharing(let shared) = entry.answer,
            let range = subject.range(on: period, gates: entry.gates), range != shared
        {
            try reveal(
                .sharing(range), app: entry.app, gates: entry.gates, firstDay: entry.firstDay, period: period,
                subject: subject)
        } else {
            // Nothing to reveal unasked (Ask First prompts on the next request): only the next review moves.
            var moved = entry
            moved.nextReview = AgeRangeRules.nextAnniversary(of: entry.firstDay, after: period).start(
                in: subject.timeZone)
            try store.saveAgeCache(moved)
        }
    }
}
