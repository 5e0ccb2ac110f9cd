import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Synchronization
import Testing

/// Several brokers share the families over one PostgreSQL server; losing one costs devices a reconnect, never a
/// question or an answer (docs/SCALING.md). Real processes: three or four family-broker, a PostgreSQL server, the
/// devices.
@Suite(
    "Brokers in a cluster", .serialized, .tags(.fleet, .postgres, .slow),
    .enabled(if: PostgresTier.runs, PostgresTier.skipped))
struct BrokerClusterTests {
    static let family = FleetSpec(
        families: [
            .init(
                "appleseed",
                members: [
                    .organizer("alice", devices: ["alice-phone"]),
                    .child("emma", devices: ["emma-tablet", "emma-phone"]),
                ])
        ], store: .postgres, brokers: 3)

    /// Short leases so a failover takes seconds; a generous ask limit for the stream.
    static let arguments = ["--ask-limit", "100000/3600", "--lease-seconds", "2", "--partitions", "8"]

    /// The broker every device of the fleet is on (the owner of their family's partition, once they followed its
    /// redirect), told by the brokers' device relays: only the owner's carries connections.
    static func owner(of fleet: Fleet, not excluded: FleetBroker? = nil) async throws -> FleetBroker {
        let found = Mutex<FleetBroker?>(nil)
        try await fleet.eventually("every device is on one broker", timeout: .seconds(30)) {
            let serving = fleet.brokers.filter { $0.deviceConnections > 0 }
            guard serving.count == 1, serving[0] !== excluded,
                serving[0].deviceConnections >= fleet.devices.count
            else { return false }
            found.withLock { $0 = serving[0] }
            return true
        }
        return found.withLock { $0! }
    }

    /// Every question answered once by approval, and delivered once to each of the child's devices.
    static func expectEachAnsweredOnce(
        _ asked: [UUID], collectors: [AppResponses], fleet: Fleet, timeout: Duration = .seconds(60)
    ) async throws {
        for (index, collector) in collectors.enumerated() {
            try await fleet.eventually("device \(index + 1) of the child has every response", timeout: timeout) {
                Set(collector.responses.map(\.question.id)).isSuperset(of: asked)
            }
            for id in asked {
                let got = collector.responses(for: id)
                #expect(got.count == 1, "question \(id) delivered \(got.count) times to device \(index + 1)")
                #expect(got.first?.choice.answer == .approval)
            }
        }
        let console = try await fleet.parent(on: "alice-phone")
        try await fleet.eventually("alice has nothing pending") { try await console.pending().isEmpty }
        await console.close()
    }

    @Test func killingTheOwnerLosesNoQuestionAndNoAnswer() async throws {
        try await Fleet.with(Self.family, brokerArguments: Self.arguments, timeout: .seconds(60)) { fleet in
            let asker = ClusterAsker(fleet)
            defer { asker.cancel() }
            let owner = try await Self.owner(of: fleet)
            var killedAt: ContinuousClock.Instant?
            var probe: UUID?
            for i in 0..<20 {
                let id = try await asker.ask("stream-\(i)")
                if i == 7 {
                    try await fleet.killBroker(owner.number)
                    killedAt = .now
                }
                if i == 8 { probe = id }
                try await Task.sleep(for: .milliseconds(100))
            }
            let probeID = try #require(probe)
            let collector = asker.collectors[0]
            try await fleet.eventually("the first question after the kill is answered", timeout: .seconds(60)) {
                !collector.responses(for: probeID).isEmpty
            }
            let served = ContinuousClock.now - killedAt!
            let newOwner = try await Self.owner(of: fleet, not: owner)
            try await asker.expectEachAnsweredOnce(fleet)
            #expect(newOwner !== owner)
            let holder = try await fleet.owner(of: "appleseed")
            #expect(holder === newOwner, "the devices are on the broker holding the family's lease")
            print(
                "cluster failover: \(owner.name) killed; the family was served again by \(newOwner.name) \(served) "
                    + "after the kill (leaseSeconds 2)")
            await asker.close()
        }
    }

    @Test func aBrokerPausedPastItsLeaseCannotCommitAndItsDevicesMove() async throws {
        try await Fleet.with(Self.family, brokerArguments: Self.arguments, timeout: .seconds(60)) { fleet in
            let asker = ClusterAsker(fleet)
            defer { asker.cancel() }
            let owner = try await Self.owner(of: fleet)
            try await asker.ask("before")
            try fleet.pauseBroker(owner.number)
            // Sent while the owner is frozen: these sit in its socket buffers, and it reads them when continued,
            // after its leases went to another broker. It must not commit them; the new owner answers them.
            for i in 0..<3 { try await asker.ask("frozen-\(i)") }
            let newOwner = try await Self.owner(of: fleet, not: owner)
            for i in 0..<3 { try await asker.ask("moved-\(i)") }
            try fleet.continueBroker(owner.number)
            for i in 0..<3 { try await asker.ask("continued-\(i)") }
            try await asker.expectEachAnsweredOnce(fleet)
            #expect(try await Self.owner(of: fleet) === newOwner, "the devices stay on the new owner")
            // Continued, it finds the family's partition gone: by its own clock (a lease passed since its last
            // renewal), its fencing check (a write for it refused) or its next lease round, whichever comes first;
            // either way it committed nothing for it (each answered once).
            let partition = fleet.partition(of: "appleseed")
            try await fleet.eventually("\(owner.name) says it lost partition \(partition)") {
                owner.daemon.recentLog(lines: 100_000).split(separator: "\n").contains { line in
                    (line.contains("partitions lost") || line.contains("leases not renewed for a lease's time"))
                        && Self.partitions(in: line).contains(partition)
                }
            }
            await asker.close()
        }
    }

    @Test func aBrokerWhoseDatabaseGoesSilentStopsServingAndAnotherTakesItsFamilies() async throws {
        let arguments = Self.arguments + ["--store-statement-timeout", "3"]
        try await Fleet.with(Self.family, brokerArguments: arguments, timeout: .seconds(60)) { fleet in
            let asker = ClusterAsker(fleet)
            defer { asker.cancel() }
            let owner = try await Self.owner(of: fleet)
            try await asker.ask("before")
            // Its connections to the server stay open and nothing passes: only its own deadlines can tell.
            try fleet.blackholeBroker(owner.number, from: .store)
            for i in 0..<3 { try await asker.ask("silent-\(i)") }
            try await fleet.eventually("another broker holds the family's lease", timeout: .seconds(60)) {
                let holder = try await fleet.owner(of: "appleseed")
                return holder != nil && holder !== owner
            }
            for line in ["leases not renewed for a lease's time", "PostgreSQL did not answer a statement in time"] {
                try await fleet.eventually("\(owner.name) logs '\(line)'") {
                    owner.daemon.recentLog(lines: 100_000).contains(line)
                }
            }
            try fleet.restoreBroker(owner.number, .store)
            for i in 0..<3 { try await asker.ask("restored-\(i)") }
            try await asker.expectEachAnsweredOnce(fleet)
            await asker.close()
        }
    }

    /// Four families, one per partition of four: three brokers hold them two, one and one; a fourth takes one.
    static let spread = FleetSpec(
        families: ["f0", "f1", "f2", "f3"].map { id in
            .init(
                familyCovering(partition: Int(id.dropFirst())!, of: 4),
                members: [
                    .organizer("\(id)-parent", devices: ["\(id)-pd"]), .child("\(id)-child", devices: ["\(id)-cd"]),
                ])
        }, store: .postgres, brokers: 3)

    /// The first family id `family-N` whose partition of `count` is `partition` (FNV-1a 64 modulo the count, as
    /// docs/SCALING.md has it).
    static func familyCovering(partition: Int, of count: Int) -> String {
        func fnv1a64(_ text: String) -> UInt64 {
            text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
        }
        return (0...).lazy.map { "family-\($0)" }.first { Int(fnv1a64($0) % UInt64(count)) == partition }!
    }

    @Test func aFourthBrokerTakesPartitionsAndDevicesFollow() async throws {
        let arguments = ["--ask-limit", "100000/3600", "--lease-seconds", "2", "--partitions", "4"]
        try await Fleet.with(Self.spread, brokerArguments: arguments, timeout: .seconds(60)) { fleet in
            let ids = ["f0", "f1", "f2", "f3"]
            let approvers = ids.map { Self.autoApprove(fleet, on: "\($0)-pd") }
            defer { for approver in approvers { approver.cancel() } }
            let apps = ids.map { fleet.app("com.example.chat", on: "\($0)-cd", timeout: .seconds(10)) }
            let collectors = apps.map(AppResponses.init)
            defer { for collector in collectors { collector.cancel() } }
            var asked: [[UUID]] = Array(repeating: [], count: ids.count)
            func askEach(_ round: String) async throws {
                for (index, app) in apps.enumerated() {
                    let question = DeliveryUnderFaultsTests.question("\(round)-\(index)")
                    try await app.ask(question)
                    asked[index].append(question.id)
                }
            }
            try await askEach("before")
            let joined = try await fleet.addBroker()
            try await askEach("joining")
            try await fleet.eventually("a family's devices moved to \(joined.name)", timeout: .seconds(30)) {
                joined.deviceConnections >= 2
            }
            try await askEach("after")
            for (index, collector) in collectors.enumerated() {
                let all = asked[index]
                try await fleet.eventually("\(ids[index]) has every response", timeout: .seconds(60)) {
                    Set(collector.responses.map(\.question.id)).isSuperset(of: all)
                }
                for id in all {
                    #expect(collector.responses(for: id).count == 1, "question \(id) of \(ids[index])")
                }
            }
            try await fleet.eventually("every broker serves a family, the devices of each on one broker") {
                fleet.brokers.map(\.deviceConnections) == [2, 2, 2, 2]
            }
            for app in apps { await app.close() }
        }
    }

    /// Approves whatever is pending at a parent's device, until cancelled.
    static func autoApprove(_ fleet: Fleet, on device: String) -> Task<Void, Never> {
        Task {
            var console: ParentConsole?
            while !Task.isCancelled {
                if console == nil { console = try? await fleet.parent(on: device) }
                if let console, let pending = try? await console.pending() {
                    for asked in pending { _ = try? await console.approve(asked.question.id) }
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            await console?.close()
        }
    }

    /// The `partitions=[…]` of a broker's log line.
    static func partitions(in line: Substring) -> [Int] {
        guard let start = line.range(of: "partitions=[")?.upperBound, let end = line[start...].firstIndex(of: "]")
        else { return [] }
        return line[start..<end].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
}
