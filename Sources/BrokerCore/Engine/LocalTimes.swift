import Foundation
import HearthCore

/// A transaction's `now` as a calendar day and time of day in each time zone it was needed in. Foundation's calendar
/// takes ~5 µs per conversion, and an ask needed three (is the asker a child, its age's default settings, downtime): a
/// few percent of the broker's CPU per cycle.
final class LocalTimes {
    let now: Date
    private var known: [TimeZone: (day: BirthDate, minute: Int)] = [:]

    init(now: Date) { self.now = now }

    /// The calendar day `now` falls on in `timeZone`.
    func day(in timeZone: TimeZone) -> BirthDate { local(timeZone).day }

    /// Minutes since midnight of `now` in `timeZone`.
    func minuteOfDay(in timeZone: TimeZone) -> Int { local(timeZone).minute }

    private func local(_ timeZone: TimeZone) -> (day: BirthDate, minute: Int) {
        if let local = known[timeZone] { return local }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: now)
        let day =
            BirthDate(year: parts.year ?? 1901, month: parts.month ?? 1, day: parts.day ?? 1)
            ?? BirthDate(dayOf: now, in: timeZone)
        let local = (day, (parts.hour ?? 0) * 60 + (parts.minute ?? 0))
        known[timeZone] = local
        return local
    }
}
