public import Foundation

extension Wire {
    /// `date` in whole milliseconds from 1970, clamped to ±`maxDateMilliseconds`: what a frame carries
    /// (`WireWriter.date`). Clamped: a date from hostile input must never trap when it is encoded again.
    public static func milliseconds(_ date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        let limit = Double(maxDateMilliseconds)
        return ms.isNaN ? 0 : Int64(max(-limit, min(limit, ms)))
    }

    /// The date `milliseconds` from 1970 stands for (`WireReader.date`).
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `date` as it is read back after a frame carried it.
    public static func carried(_ date: Date) -> Date { self.date(milliseconds: milliseconds(date)) }
}
