public import Foundation
import HearthCore
import HearthProtocol

/// How long a family's questions wait and when their parents are reminded: the family file's `questionLifetime` and
/// `questionReminder` (docs/FAMILY-RULES.md), parsed once when the directory is built.
public struct QuestionTimes: Sendable, Equatable {
    /// Seconds a question without an earlier expiration date waits for a parent.
    public var lifetime: TimeInterval
    /// Seconds before a question's expiry its parents are reminded; 0: never.
    public var reminder: TimeInterval

    /// Three days, long enough for a weekend away; a reminder an hour before.
    public static let standard = QuestionTimes(lifetime: 72 * 3600, reminder: 3600)
    /// The bounds of `questionLifetime`: a minute to 30 days.
    static let lifetimeRange: ClosedRange<TimeInterval> = 60...(30 * 86_400)

    public init(lifetime: TimeInterval, reminder: TimeInterval) {
        self.lifetime = lifetime
        self.reminder = reminder
    }

    /// The expiration date a question asked at `now` gets: its own when earlier, else `now + lifetime`.
    func expiration(of question: Question, now: Date) -> Date {
        let latest = now.addingTimeInterval(lifetime)
        guard let own = question.expirationDate else { return latest }
        return min(own, latest)
    }

    /// When the parents of a question asked at `askedAt` and expiring at `expiresAt` are reminded; nil for none. A
    /// question with less than twice the reminder's time to live is reminded of halfway through.
    func reminderDate(askedAt: Date, expiresAt: Date) -> Date? {
        guard reminder > 0 else { return nil }
        let life = expiresAt.timeIntervalSince(askedAt)
        guard life > 0 else { return nil }
        return expiresAt.addingTimeInterval(-min(reminder, life / 2))
    }

    /// Seconds in a duration such as `90s`, `45m`, `72h` or `3d`; nil when it is not one.
    static func seconds(in text: String) -> TimeInterval? {
        guard let unit = text.last, let count = Int(text.dropLast()), count >= 0 else { return nil }
        let scale: TimeInterval? =
            switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86_400
            default: nil
            }
        return scale.map { Double(count) * $0 }
    }
}

extension Directory.FileCheck {
    /// The times `family` sets, each key checked; nil when it sets none (the standard times apply).
    func questionTimes(of family: FamilyFile.Family, path: String) throws -> QuestionTimes? {
        guard family.questionLifetime != nil || family.questionReminder != nil else { return nil }
        var times = QuestionTimes.standard
        if let text = family.questionLifetime {
            guard let seconds = QuestionTimes.seconds(in: text), QuestionTimes.lifetimeRange.contains(seconds) else {
                throw fail(
                    "\(path).questionLifetime",
                    "'\(text)' is not a duration from 1m to 30d (a whole number and s, m, h or d, e.g. 72h)")
            }
            times.lifetime = seconds
        }
        if let text = family.questionReminder {
            guard let seconds = QuestionTimes.seconds(in: text), seconds < times.lifetime else {
                throw fail(
                    "\(path).questionReminder",
                    "'\(text)' is not a duration shorter than the question lifetime (e.g. 1h, or 0s for none)")
            }
            times.reminder = seconds
        }
        return times
    }
}
