import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// Declared Age Range commands. The birth date never leaves this file's functions: replies and events carry ranges.
extension Transaction {
    mutating func handleAgeRange(_ message: AgeRangeMessage, member: Directory.Member, in db: Database) throws -> Message {
        switch message {
        case .request(let app, let gates):
            return .ageRange(try requestAgeRange(app: app, gates: gates, member: member, in: db))
        case .setSharing(let target, let setting):
            return .ageRange(try setAgeSharing(setting, of: target, by: member, in: db))
        case .answerPrompt(let id, let share):
            return .ageRange(try answerAgePrompt(id, share: share, member: member, in: db))
        case .clearCache(let app):
            return .ageRange(.cacheCleared(app: app, existed: try BrokerStore.clearAgeCache(member.id, app: app, in: db)))
        default:
            throw ErrorReply(.unknownMessageType, "message type 0x\(String(message.typeCode, radix: 16)) is not a broker command")
        }
    }

    // MARK: request

    private mutating func requestAgeRange(app: BundleID, gates: [Int], member: Directory.Member, in db: Database) throws -> AgeRangeMessage {
        do {
            try AgeRangeRules.validate(gates)
        } catch {
            throw ErrorReply(.invalidAgeRequest, error.description)
        }
        let subject = try ageRangeSubject(member, in: db)
        guard subject.birthDate != nil else {
            throw ErrorReply(.ageNotDeclared, "\(member.id) has no birth date on record, so there is no age range to share")
        }
        let setting = try BrokerStore.ageSharing(of: member.id, in: db) ?? .default
        if setting == .never { return .result(app: app, .declined(.neverShare)) }

        let today = subject.day(of: now)
        let cached = try BrokerStore.ageCache(member.id, app: app, in: db)
        let firstDay = cached?.firstDay ?? today
        // New information appears only on an anniversary of the first declaration: the range is the one of that day.
        let period = AgeRangeRules.lastAnniversary(of: firstDay, onOrBefore: today)
        let range = subject.range(on: period, gates: gates)!

        if let cached {
            switch cached.answer {
            case .sharing(let shared) where shared == range:
                if cached.periodDay != period || cached.gates != gates {
                    try remember(.sharing(range), app: app, gates: gates, firstDay: firstDay, period: period, subject: subject, in: db)
                }
                return .result(app: app, .sharing(range))
            case .declined where setting == .askFirst && cached.periodDay == period:
                // The user said no for this period: no new prompt before the next anniversary.
                return .result(app: app, .declined(.userDeclined))
            default:
                break
            }
        }
        switch setting {
        case .always:
            try reveal(.sharing(range), app: app, gates: gates, firstDay: firstDay, period: period, subject: subject, in: db)
            return .result(app: app, .sharing(range))
        default:
            let prompt = try openPrompt(app: app, gates: gates, range: range, member: member.id, in: db)
            let remaining = max(0, prompt.expiresAt.timeIntervalSince(now))
            return .prompted(id: prompt.id, app: app, timeoutMilliseconds: UInt32(clamping: Int((remaining * 1000).rounded())))
        }
    }

    /// Stores the answer for (member, app) and tells the member's devices, which pass it to the app's watchers.
    private mutating func reveal(
        _ answer: AgeRangeAnswer, app: BundleID, gates: [Int], firstDay: BirthDate, period: BirthDate, subject: AgeRangeSubject, in db: Database
    ) throws {
        try remember(answer, app: app, gates: gates, firstDay: firstDay, period: period, subject: subject, in: db)
        try publish(.ageRange(.answerChanged(app: app, answer)), to: subject.id, in: db)
    }

    private func remember(
        _ answer: AgeRangeAnswer, app: BundleID, gates: [Int], firstDay: BirthDate, period: BirthDate, subject: AgeRangeSubject, in db: Database
    ) throws {
        let next = AgeRangeRules.nextAnniversary(of: firstDay, after: period).start(in: subject.timeZone)
        try BrokerStore.saveAgeCache(
            .init(memberID: subject.id, app: app, firstDay: firstDay, periodDay: period, gates: gates, answer: answer, nextReview: next),
            in: db)
    }

    /// The open prompt asking the same thing, or a new one on the member's devices.
    private mutating func openPrompt(app: BundleID, gates: [Int], range: DeclaredRange, member: MemberID, in db: Database) throws -> AgePrompt {
        if let open = try BrokerStore.openAgePrompts(member, app: app, now: now, in: db).first(where: { $0.range == range }) {
            return open  // an app asking again while the user decides gets the same prompt, not a second one
        }
        let prompt = AgePrompt(
            id: UUID(), memberID: member, app: app, gates: gates, range: range, createdAt: now,
            expiresAt: now.addingTimeInterval(policy.agePromptTimeoutSeconds))
        try BrokerStore.insertAgePrompt(prompt, in: db)
        try publish(.ageRange(.promptOpened(prompt)), to: member, in: db)
        return prompt
    }

    // MARK: prompts

    private mutating func answerAgePrompt(_ id: UUID, share: Bool, member: Directory.Member, in db: Database) throws -> AgeRangeMessage {
        // Someone else's prompt gets the same reply as a missing one: it reveals nothing.
        guard let (prompt, status) = try BrokerStore.agePrompt(id, in: db), prompt.memberID == member.id else {
            throw ErrorReply(.notFound, "no age range prompt \(id)")
        }
        switch status {
        case .open: break
        case .shared, .declined:
            throw ErrorReply(.alreadyAnswered, "age range prompt \(id) was already answered: \(status == .shared ? "share" : "decline")")
        case .expired:
            throw ErrorReply(.expired, "age range prompt \(id) expired at \(prompt.expiresAt)")
        }
        guard prompt.expiresAt > now else {
            // The sweep closes it and tells the devices; this reply changes nothing.
            throw ErrorReply(.expired, "age range prompt \(id) expired at \(prompt.expiresAt)")
        }
        let subject = try ageRangeSubject(member, in: db)
        let today = subject.day(of: now)
        let firstDay = try BrokerStore.ageCache(member.id, app: prompt.app, in: db)?.firstDay ?? today
        let period = AgeRangeRules.lastAnniversary(of: firstDay, onOrBefore: today)
        let answer: AgeRangeAnswer = share ? .sharing(prompt.range) : .declined(.userDeclined)
        try BrokerStore.closeAgePrompt(id, status: share ? .shared : .declined, in: db)
        try publish(.ageRange(.promptClosed(id: id, app: prompt.app, answer)), to: member.id, in: db)
        try reveal(answer, app: prompt.app, gates: prompt.gates, firstDay: firstDay, period: period, subject: subject, in: db)
        return .promptAnswered(id: id, answer)
    }

    private mutating func expire(_ prompt: AgePrompt, in db: Database) throws {
        try BrokerStore.closeAgePrompt(prompt.id, status: .expired, in: db)
        try publish(.ageRange(.promptClosed(id: prompt.id, app: prompt.app, .declined(.promptTimedOut))), to: prompt.memberID, in: db)
    }

    // MARK: settings

    private mutating func setAgeSharing(_ setting: AgeSharing, of target: MemberID, by caller: Directory.Member, in db: Database) throws -> AgeRangeMessage {
        // A stranger (not the member, not of its family) gets one answer whether or not the member exists.
        guard let member = directory.members[target],
              caller.id == target || (caller.familyID != nil && caller.familyID == member.familyID)
        else { throw ErrorReply(.notFound, "no member \(target) in your family") }
        let subject = try ageRangeSubject(member, in: db)
        if subject.isChild {
            guard caller.role.isParent, caller.familyID != nil, caller.familyID == member.familyID else {
                throw ErrorReply(.notAuthorized, "only an organizer or guardian of \(target)'s family sets a child's age range sharing")
            }
        } else {
            guard caller.id == target else {
                throw ErrorReply(.notAuthorized, "an adult sets their own age range sharing; \(caller.id) cannot set \(target)'s")
            }
        }
        try BrokerStore.setAgeSharing(setting, of: target, by: caller.id, at: now, in: db)
        return .sharingSet(member: target, setting)
    }

    // MARK: maintenance

    /// Closes expired prompts and reveals anniversaries' new information under Always Share, so watchers learn of
    /// it without asking. Run by the broker's sweeper, in a transaction of its own.
    mutating func maintainAgeRanges(in db: Database) throws {
        for prompt in try BrokerStore.expiredAgePrompts(at: now, in: db) { try expire(prompt, in: db) }
        for entry in try BrokerStore.ageCacheDue(at: now, in: db) { try review(entry, in: db) }
    }

    /// The member as Declared Age Range sees them today.
    private func ageRangeSubject(_ member: Directory.Member, in db: Database) throws -> AgeRangeSubject {
        let limits = directory.isChild(member, on: now) && member.familyID != nil ? try settings(of: member, in: db).enabled : false
        return AgeRangeSubject(member, directory: directory, on: now, limitsEnabled: limits)
    }

    /// An anniversary came for (member, app).
    private mutating func review(_ entry: BrokerStore.AgeCacheEntry, in db: Database) throws {
        guard let member = directory.members[entry.memberID] else {
            _ = try BrokerStore.clearAgeCache(entry.memberID, app: entry.app, in: db)
            return
        }
        let subject = try ageRangeSubject(member, in: db)
        let period = AgeRangeRules.lastAnniversary(of: entry.firstDay, onOrBefore: subject.day(of: now))
        let setting = try BrokerStore.ageSharing(of: member.id, in: db) ?? .default
        if setting == .always, case .sharing(let shared) = entry.answer,
           let range = subject.range(on: period, gates: entry.gates), range != shared {
            try reveal(.sharing(range), app: entry.app, gates: entry.gates, firstDay: entry.firstDay, period: period, subject: subject, in: db)
        } else {
            // Nothing to reveal unasked (Ask First prompts on the next request): only the next review moves.
            var moved = entry
            moved.nextReview = AgeRangeRules.nextAnniversary(of: entry.firstDay, after: period).start(in: subject.timeZone)
            try BrokerStore.saveAgeCache(moved, in: db)
        }
    }
}
