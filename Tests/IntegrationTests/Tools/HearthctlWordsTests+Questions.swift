import Foundation
import HearthCore
import HearthFleet
import HearthService
import Testing

extension HearthctlWordsTests {
    /// A question-id prefix works on the child's device as it does for `parent approve` (to withdraw, approve or
    /// decline in person): child-device lists the child's waiting questions, and an unknown prefix is refused in words.
    @Test func questionPrefixesWorkOnTheChildsDevice() async throws {
        try await Fleet.with(Self.family) { fleet in
            let child = ["--socket", fleet.socket(of: "emma-tablet")]
            let first = try Self.askedID(try await hearthctl(["app", "ask", "sam"] + child).output)
            let withdrawn = try await hearthctl(["app", "withdraw", String(first.uuidString.prefix(8))] + child)
            #expect(withdrawn.status == 0, "\(withdrawn)")
            #expect(withdrawn.output.contains("withdrawn: question \(first)"), "\(withdrawn.output)")

            let passcode = try await ExecutableRun.run(
                "hearthctl", ["parent", "passcode", "emma", "--socket", fleet.socket(of: "alice-phone")],
                input: "2468\n", timeout: .seconds(60))
            #expect(passcode.status == 0, "\(passcode)")
            let second = try Self.askedID(try await hearthctl(["app", "ask", "lee"] + child).output)
            let prefix = String(second.uuidString.lowercased().prefix(6))
            let approved = try await ExecutableRun.run(
                "hearthctl", ["child", "approve-in-person", prefix] + child, input: "2468\n", timeout: .seconds(60))
            #expect(approved.status == 0 && approved.output.contains("Approved in person"), "\(approved)")
            let third = try Self.askedID(try await hearthctl(["app", "ask", "kim"] + child).output)
            let declined = try await ExecutableRun.run(
                "hearthctl", ["child", "decline-in-person", String(third.uuidString.prefix(8))] + child,
                input: "2468\n", timeout: .seconds(60))
            #expect(declined.status == 0 && declined.output.contains("Declined in person"), "\(declined)")
            let history = try await hearthctl([
                "parent", "history", "emma", "--socket", fleet.socket(of: "alice-phone"),
            ])
            #expect(history.output.contains("declinedInPerson"), "\(history.output)")

            let unknown = try await hearthctl(["app", "withdraw", "0000ffff"] + child)
            #expect(unknown.status == 1, "\(unknown)")
            #expect(unknown.output.contains("no waiting question starts with '0000ffff'"), "\(unknown.output)")
        }
    }

    /// An empty downtime window, both limit flags at once and an hour past 23 are refused, each saying what is wrong,
    /// before anything is sent; `history --since` takes a date alone as that day's midnight UTC.
    @Test func schedulesFlagsAndDatesAreReadAsAPersonWritesThem() async throws {
        try await Fleet.with(Self.family) { fleet in
            let socket = ["--socket", fleet.socket(of: "alice-phone")]
            for (arguments, words) in [
                (["--schedule", "21:00-21:00"], "starts when it ends"),
                (["--enable-limits", "--disable-limits"], "--disable-limits"),
                (["--schedule", "25:00-07:00"], "the hour 25 in '25:00-07:00' is out of range"),
                (["--schedule", "21:60-07:00"], "the minute 60 in '21:60-07:00' is out of range"),
            ] {
                let refused = try await hearthctl(["parent", "limits", "emma"] + arguments + socket)
                #expect(refused.status != 0 && refused.output.contains(words), "\(arguments): \(refused.output)")
            }
            let utc = TimeZone(identifier: "UTC")!
            let today = Date.ISO8601FormatStyle(timeZone: utc).year().month().day().format(Date())
            let tomorrow = Date.ISO8601FormatStyle(timeZone: utc).year().month().day()
                .format(Date().addingTimeInterval(86_400))
            let set = try await hearthctl(["parent", "limits", "emma", "--schedule", "22:00-06:30"] + socket)
            #expect(set.status == 0 && set.output.contains("22:00-06:30"), "\(set)")

            let since = try await hearthctl(["parent", "history", "emma", "--since", today] + socket)
            #expect(since.status == 0 && since.output.contains("limitsChanged"), "\(since)")
            let none = try await hearthctl(["parent", "history", "emma", "--since", tomorrow] + socket)
            #expect(none.status == 0 && none.output.contains("Nothing recorded about emma"), "\(none)")
            let help = try await hearthctl(["parent", "history", "--help"])
            #expect(help.output.contains("midnight UTC"), "\(help.output)")
        }
    }

    /// `app watch` leaves out who answered when nobody did; `parent list` says the actions in words.
    @Test func responsesAndQuestionsReadAsSentences() async throws {
        try await Fleet.with(Self.family) { fleet in
            let child = ["--socket", fleet.socket(of: "emma-tablet")]
            let asked = try await hearthctl(
                ["app", "ask", "sam", "--action", "message", "--action", "videoCall"] + child)
            let id = try Self.askedID(asked.output)
            let listed = try await hearthctl(["parent", "list", "--socket", fleet.socket(of: "alice-phone")])
            #expect(listed.output.contains("wants to message or video call with:"), "\(listed.output)")

            _ = try await hearthctl(["app", "withdraw", id.uuidString] + child)
            let watched = try await hearthctl(["app", "watch", "--count", "1", "--seconds", "30"] + child)
            #expect(watched.output.contains("question \(id)"), "\(watched.output)")
            #expect(!watched.output.contains("by -"), "\(watched.output)")
        }
    }
}
