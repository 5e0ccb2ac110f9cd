import Foundation
import HearthCore
import HearthProtocol

/// Nothing waits forever: a question's lifetime and reminder, the app withdrawing its question, and the sweep that
/// reminds parents before a question expires (docs/FAMILY-RULES.md).
extension Transaction {
    /// Gives a question going pending the family's lifetime (its own expiration date when earlier); returns when its
    /// parents are to be reminded, if at all (`scheduleReminder` once the question is stored).
    func giveLifetime(_ asked: inout AskedQuestion, family: FamilyID?) -> Date? {
        let times = directory.questionTimes(of: family)
        let expiresAt = times.expiration(of: asked.question, now: now)
        asked.question.expirationDate = expiresAt
        return times.reminderDate(askedAt: now, expiresAt: expiresAt)
    }

    /// The child's app takes back its pending question: resolved with its default choice, reason `withdrawn`, and
    /// the child's devices and the parents told. A repeat returns the same resolution.
    mutating func withdraw(_ questionID: UUID, caller: Directory.Member) throws -> BrokerReply {
        guard let stored = try store.question(questionID) else {
            throw ErrorReply(.notFound, "no question \(questionID)")
        }
        guard stored.asked.childMemberID == caller.id else {
            let child = directory.members[stored.asked.childMemberID]
            if caller.role.isParent, let child, child.familyID != nil, child.familyID == caller.familyID {
                throw ErrorReply(.notAuthorized, "only the child's app withdraws a question; a parent declines it")
            }
            throw ErrorReply(.notFound, "no question \(questionID)")
        }
        if let resolution = stored.resolution {
            if resolution.reason == .withdrawn { return .answerAccepted(resolution) }
            throw alreadyAnswered(questionID, resolution)
        }
        if let expiration = stored.asked.question.expirationDate, expiration <= now {
            throw ErrorReply(.expired, "question \(questionID) expired at \(expiration.formatted(.iso8601))")
        }
        let parents = directory.parents(of: caller.familyID)
        guard
            let resolution = try resolveWithDefault(
                stored, reason: .withdrawn, family: caller.familyID, parents: parents)
        else {
            throw ErrorReply(.internalError, "question \(questionID) has no default choice to close it with")
        }
        return .answerAccepted(resolution)
    }

    /// Reminds the parents of each pending question whose reminder is due, once; a reminder whose question was
    /// answered, withdrawn or expired meanwhile is dropped.
    mutating func sendReminders() throws {
        for id in try store.dueReminders(at: now, limit: 1000) {
            let stored = try store.question(id)
            // On a cluster, another broker's partitions are its own sweep's: their rows stay for it.
            guard mayWrite(stored.flatMap { directory.members[$0.asked.childMemberID]?.familyID }) else { continue }
            try store.removeReminder(id)
            guard let stored, stored.resolution == nil,
                let expiration = stored.asked.question.expirationDate, expiration > now,
                let child = directory.members[stored.asked.childMemberID], child.familyID != nil
            else { continue }
            for parent in directory.parents(of: child.familyID) {
                try publish(.questionReminder(stored.asked), to: parent)
            }
        }
    }
}
