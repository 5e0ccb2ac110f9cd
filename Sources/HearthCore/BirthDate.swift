public import Foundation

/// A calendar birth date (`YYYY-MM-DD`). It stays inside the broker: only ages and age ranges leave it.
public struct BirthDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Parses `YYYY-MM-DD`; nil unless it names a real day after 1900.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Nil unless the three numbers name a real day after 1900.
    public init?(year: Int, month: Int, day: Int) {
        guard year > 1900, year < 10_000, (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day)
        else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public static func < (a: BirthDate, b: BirthDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// Completed years on the calendar day `date` falls on in `timeZone`.
    ///
    /// Someone born on 29 February has their birthday on 1 March in common years (the rule of, e.g., England and Wales;
    /// some countries use 28 February instead).
    public func age(on date: Date, in timeZone: TimeZone) -> Int {
        let today = Self.day(of: date, in: timeZone)
        var age = today.year - year
        if (today.month, today.day) < birthdayIn(year: today.year) { age -= 1 }
        return max(age, 0)
    }

    /// The month and day of the birthday in `year`.
    public func birthdayIn(year: Int) -> (month: Int, day: Int) {
        if month == 2, day == 29, Self.daysIn(month: 2, year: year) == 28 { return (3, 1) }
        return (month, day)
    }

    /// The calendar day `date` falls on in `timeZone`.
    public static func day(of date: Date, in timeZone: TimeZone) -> (year: Int, month: Int, day: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return (parts.year!, parts.month!, parts.day!)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
