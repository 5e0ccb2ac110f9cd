import ArgumentParser
import HearthCore

/// A downtime window as a person types it, `HH:MM-HH:MM` on a 24-hour clock, checked part by part so the error says
/// which part is wrong; a window that starts when it ends is empty, so it is refused rather than stored.
enum ScheduleText {
    static func parse(_ text: String) throws -> CommunicationSettings.Downtime {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2 else {
            throw ValidationError("--schedule: '\(text)' is not HH:MM-HH:MM (e.g. 21:00-07:00), or none")
        }
        let start = try minute(ends[0], in: text)
        let end = try minute(ends[1], in: text)
        guard start != end else {
            throw ValidationError(
                "--schedule: '\(text)' starts when it ends, an empty window; to have no downtime, use --schedule none")
        }
        return CommunicationSettings.Downtime(startMinute: start, endMinute: end)
    }

    private static func minute(_ part: Substring, in text: String) throws -> UInt16 {
        let hm = part.split(separator: ":", omittingEmptySubsequences: false)
        guard hm.count == 2, hm.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) }),
            let hour = UInt16(hm[0]), let minute = UInt16(hm[1])
        else {
            throw ValidationError("--schedule: '\(part)' in '\(text)' is not HH:MM (e.g. 21:00-07:00)")
        }
        guard hour < 24 else {
            throw ValidationError("--schedule: the hour \(hour) in '\(text)' is out of range: hours are 00 to 23")
        }
        guard minute < 60 else {
            throw ValidationError("--schedule: the minute \(minute) in '\(text)' is out of range: minutes are 00 to 59")
        }
        return hour * 60 + minute
    }
}
