import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The family of the Declared Age Range engine tests. Each member has devices `<id>-1` and `<id>-2`.
///
/// f: mum (organizer, 1985), dad (guardian, 1986), gran (adult, 1950), kid (child, 2012-09-01), teen (child,
/// 2010-01-10), june (child, 2012-06-20).
/// g: zed (organizer), zkid (child, 2013), nodate (child, no birth date), free (child, 2015, limits off).
/// Unaffiliated: loner (child, 2010-02-02), solo (adult, 1990), miss (adult, 2003-01-01, region US-MS where majority is 21).
enum AgeFamily {
    static func directory() throws -> Directory {
        func member(
            _ id: MemberID, _ role: String, _ birthDate: String?, region: String = "US", limits: Bool? = nil
        ) throws -> FamilyFile.Member {
            FamilyFile.Member(
                id: id, name: id, role: role, birthDate: birthDate, region: region, communicationLimits: limits,
                devices: [
                    FamilyFile.Device(id: "\(id)-1", publicKey: try TestFamily.key()),
                    FamilyFile.Device(id: "\(id)-2", publicKey: try TestFamily.key()),
                ])
        }
        let file = FamilyFile(
            families: [
                FamilyFile.Family(
                    id: "f", name: "F",
                    members: [
                        try member("mum", "organizer", "1985-03-02"),
                        try member("dad", "guardian", "1986-04-03"),
                        try member("gran", "adult", "1950-01-01"),
                        try member("kid", "child", "2012-09-01"),
                        try member("teen", "child", "2010-01-10"),
                        try member("june", "child", "2012-06-20"),
                    ]),
                FamilyFile.Family(
                    id: "g", name: "G",
                    members: [
                        try member("zed", "organizer", "1980-01-01"),
                        try member("zkid", "child", "2013-01-01"),
                        try member("nodate", "child", nil),
                        try member("free", "child", "2015-01-01", limits: false),
                    ]),
            ],
            unaffiliated: [
                try member("loner", "child", "2010-02-02"),
                try member("solo", "adult", "1990-01-01"),
                try member("miss", "adult", "2003-01-01", region: "US-MS"),
            ])
        return try Directory(file: file, keysDirectory: "/nonexistent", source: "age-family.yaml")
    }

    /// Noon UTC on `day` (YYYY-MM-DD).
    static func noon(_ day: String) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = day.split(separator: "-").map { Int($0)! }
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 12))!
    }

    /// A harness over `AgeFamily` whose clock starts at noon UTC on `day`.
    static func with(
        _ backend: StorageBackend = .sqlite, startingOn day: String = "2025-06-15",
        _ body: (BrokerHarness) async throws -> Void
    ) async throws {
        try await BrokerHarness.with(backend, directory: try directory(), clock: TestClock(noon(day)), body)
    }
}

extension TestClock {
    /// Moves the clock to noon UTC on `day`.
    func set(_ day: String) {
        advance(by: AgeFamily.noon(day).timeIntervalSince(now))
    }
}

extension BrokerHarness {
    /// Sends an age range command from `member`'s device number `device`.
    func age(
        _ message: AgeRangeMessage, from member: MemberID, device: Int = 1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Outcome {
        try await sendFrame(
            MessageCodec.encode(.ageRange(message), requestID: requestID()), device: "\(member)-\(device)",
            sourceLocation: sourceLocation)
    }

    func request(
        _ gates: [Int], from member: MemberID, app: BundleID = "com.example.app", device: Int = 1
    ) async throws -> Outcome {
        try await age(.request(app: app, gates: gates), from: member, device: device)
    }

    @discardableResult
    func setSharing(_ setting: AgeSharing, of member: MemberID, by caller: MemberID) async throws -> Outcome {
        try await age(.setSharing(member: member, setting), from: caller)
    }

    /// One run of the broker's age range sweep, as its sweeper task does every second.
    func tick() async throws -> Outcome {
        let output = try await engine.maintainAgeRanges()
        return Outcome(reply: .ok, requestID: 0, events: output.events)
    }
}

extension Message {
    var ageResult: AgeRangeAnswer? {
        if case .ageRange(.result(_, let answer)) = self { return answer }
        return nil
    }

    var sharedRange: DeclaredRange? {
        if case .sharing(let range)? = ageResult { return range }
        return nil
    }

    var prompt: (id: UUID, milliseconds: UInt32)? {
        if case .ageRange(.prompted(let id, _, let milliseconds)) = self { return (id, milliseconds) }
        return nil
    }
}

extension Event.Body {
    var ageEvent: AgeRangeEvent? {
        if case .ageRange(let event) = self { return event }
        return nil
    }
}

/// A range with the given bounds, declaration and controls, for comparisons.
func range(_ lower: Int?, _ upper: Int?, _ declaration: AgeDeclaration, limits: Bool = false) -> DeclaredRange {
    DeclaredRange(
        lowerBound: lower, upperBound: upper, declaration: declaration,
        parentalControls: limits ? .communicationLimits : [])
}
