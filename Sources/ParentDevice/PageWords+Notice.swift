import Foundation
import HearthCore

extension PageWords {
    /// What the page says after an answer: which answer, about whom, for which child ("Declined username
    /// dragonslayer42 for emma (answered as alice)."), following the resolution's answer, never the choice's title.
    /// `asked` is the question as this device had it (nil when it was no longer here).
    static func notice(_ resolution: Resolution, asked: AskedQuestion?) -> String {
        let verb = resolution.choice.answer == .approval ? "Approved" : "Declined"
        let by = resolution.answeredBy.map { " (answered as \(isolated($0)))" } ?? ""
        guard let asked else { return "\(verb) the question\(by)." }
        let child = isolated(asked.childMemberID)
        let app = isolated(asked.appBundleID)
        let what: String
        switch asked.question.topic {
        case .communication(let topic):
            what = list(topic.personInformation.map(person))
        case .significantAppUpdate:
            what = "the update of \(app)"
        }
        let saying =
            resolution.reason == .parentAnswered ? "" : " It was already settled: \(reason(resolution.reason))."
        return "\(verb) \(what.isEmpty ? "the question" : what) for \(child)\(by).\(saying)"
    }

    /// "Leo Martin (username dragonslayer42)" or "username dragonslayer42", each part isolated.
    static func person(_ person: PersonInformation) -> String {
        let handle = "\(kind(person.handle.kind)) \(isolated(person.handle.value))"
        guard let name = name(person.nameComponents) else { return handle }
        return "\(isolated(name)) (\(handle))"
    }

    private static func reason(_ reason: Resolution.Reason) -> String {
        switch reason {
        case .parentAnswered: "a parent answered"
        case .defaultNoFamily, .defaultLimitsOff: "it got its default answer"
        case .alreadyKnown: "the person was already known"
        case .expired: "it expired"
        case .childRemoved: "the child left the family"
        case .approvedInPerson: "it was approved in person"
        case .declinedInPerson: "it was declined in person"
        case .withdrawn: "the app withdrew it"
        }
    }

    /// Text an app or a child controls, for plain text that a page or a terminal shows: without control or bidi
    /// characters (each becomes U+FFFD), inside a first-strong isolate so that it cannot reorder what surrounds it.
    static func isolated(_ text: String) -> String {
        var out = "\u{2068}"
        for scalar in text.unicodeScalars {
            out.unicodeScalars.append(PageHTML.isHidden(scalar) ? "\u{FFFD}" : scalar)
        }
        return out + "\u{2069}"
    }
}
