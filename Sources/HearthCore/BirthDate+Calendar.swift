public import Foundation

extension BirthDate {
    /// Completed years on the calendar day `day` (same leap-day rule as `age(on:in:)`).
    public func age(onDay day: BirthDate) -> Int {
        var age = day.year - year
        if (day.month, day.day) < birthdayIn(year: day.year) { age -= 1 }
        return Swift.max(age, 0)
    }

    /// The calendar day `date` falls on in `timeZone`.
    public init(dayOf date: Date, in timeZone: TimeZone) {
        let (y, m, d) = Self.day(of: date, in: timeZone)
        self = BirthDate(year: y, month: m, day: d) ?? BirthDate(year: 1901, month: 1, day: 1)!
    }

    /// The instant this day starts in `timeZone`.
    public func start(in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? .distantPast
    }
}
