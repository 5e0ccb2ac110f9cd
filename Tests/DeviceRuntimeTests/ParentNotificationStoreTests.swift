import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import DeviceRuntime
@testable import ParentDevice

/// parent-device's notifications: recorded once per event, pushed to watchers, shown on the desktop once per device
/// (across a reopen of the same SQLite file).
struct ParentNotificationStoreTests {
    let path: String
    let store: DeviceStore
    let behavior: ParentBehavior
    let context = FakeContext(daemonName: "parent-device")

    init() throws {
        store = try temporaryStore { ParentStore.migrate(&$0) }
        path = store.pool.path
        behavior = ParentBehavior(store: ParentStore(store.pool), desktop: DesktopNotifier(environment: [:]))
    }

    func apply(_ events: [Event]) async throws {
        let (applied, _) = try await store.apply(events, behavior: behavior)
        await behavior.applied(applied, context: context)
    }

    func pushed() -> [ParentNotification] {
        context.sent.compactMap { if case .parentNotification(let n) = $0.message { n } else { nil } }
    }

    @Test func eachEventIsToldOnceToWatchersInOrder() async throws {
        let question = Fixtures.question("mallory")
        let asked = Fixtures.asked(question)
        let watching = await behavior.handleLocal(
            Envelope(requestID: 1, message: .parentWatch(after: nil)), from: [7], context: context)
        #expect(watching == .parentWatching(head: 0))
        try await apply([Fixtures.event(1, .questionPending(asked))])
        try await apply([Fixtures.event(2, .questionResolved(asked, Fixtures.resolution(question)))])
        let told = pushed()
        #expect(told.map(\.id) == [1, 2])
        #expect(told.map(\.kind) == [.questionPending, .questionAnswered])
        #expect(told.allSatisfy { $0.questionID == question.id && $0.childMemberID == asked.childMemberID })
        #expect(context.sent.allSatisfy { $0.routingID == [7] && $0.requestID == 0 })

        // A watcher resuming after 1 gets what it missed first, then the head.
        context.clearSent()
        let resumed = await behavior.handleLocal(
            Envelope(requestID: 2, message: .parentWatch(after: 1)), from: [8], context: context)
        #expect(resumed == .parentWatching(head: 2))
        #expect(pushed().map(\.id) == [2])
    }

    @Test func aReminderIsToldOnlyWhileTheQuestionWaitsAndAWithdrawalIsNamed() async throws {
        let question = Fixtures.question("mallory")
        let asked = Fixtures.asked(question)
        try await apply([Fixtures.event(1, .questionPending(asked)), Fixtures.event(2, .questionReminder(asked))])
        var withdrawn = Fixtures.resolution(question)
        withdrawn.reason = .withdrawn
        withdrawn.answeredBy = nil
        try await apply([Fixtures.event(3, .questionResolved(asked, withdrawn))])
        // A reminder that arrives after the question closed (a device catching up) tells nothing.
        try await apply([Fixtures.event(4, .questionReminder(asked))])
        let told = try await ParentStore(store.pool).notifications(after: 0)
        #expect(told.map(\.kind) == [.questionPending, .questionReminder, .questionWithdrawn])
        #expect(told[1].text.hasPrefix("still waiting: "), "\(told[1].text)")
        #expect(told[2].text.contains("withdrew"), "\(told[2].text)")
    }

    @Test func aCoParentsSettingsChangeIsToldAndOnesOwnIsNot() async throws {
        func entry(by actor: MemberID) -> HistoryEntry {
            HistoryEntry(
                id: 1, childMemberID: "emma", recordedAt: Date(timeIntervalSince1970: 1_750_000_000),
                kind: .limitsChanged, actor: actor, deviceID: "\(actor)-phone",
                summary: "\(actor) changed emma's limits: Screen Time contactsOnly → everyone")
        }
        // Alice's log: her own change, then bob's.
        try await apply([
            Event(memberID: "alice", sequence: 1, createdAt: Date(), body: .historyRecorded(entry(by: "alice"))),
            Event(memberID: "alice", sequence: 2, createdAt: Date(), body: .historyRecorded(entry(by: "bob"))),
        ])
        let told = try await ParentStore(store.pool).notifications(after: 0)
        #expect(told.map(\.kind) == [.settingsChanged])
        #expect(told.first?.answeredBy == "bob" && told.first?.childMemberID == "emma")
        #expect(told.first?.text == "bob changed emma's limits: Screen Time contactsOnly → everyone")
        #expect(DesktopNotifier.title(try #require(told.first)) == "emma's settings changed")
    }

    @Test func shownOnTheDesktopOnceAcrossARestart() async throws {
        let question = Fixtures.question("mallory")
        try await apply([Fixtures.event(1, .questionPending(Fixtures.asked(question)))])
        // The behaviour took it for the desktop already (off here, so it only logged that).
        #expect(try await ParentStore(store.pool).takeUnshownOnDesktop().isEmpty)
        try store.pool.close()

        let reopened = try DeviceStore(path: path, label: "test") { ParentStore.migrate(&$0) }
        let parent = ParentStore(reopened.pool)
        #expect(try await parent.takeUnshownOnDesktop().isEmpty, "not shown again after a restart")
        #expect(try await parent.notificationHead() == 1)
        #expect(try await parent.notifications(after: 0).map(\.kind) == [.questionPending])
    }

    @Test func desktopIsOffWithoutASessionBus() {
        let off = DesktopNotifier(environment: ["PATH": "/usr/bin:/bin"])
        #expect(off.offReason?.contains("no session bus") == true)
    }

    @Test func desktopCallsTheFreedesktopServiceOnAPrivateBus() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-monitor"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus")
        else {
            // Never a silent pass: without the tools this test would prove nothing.
            Issue.record("dbus-daemon, dbus-monitor or gdbus is not installed: run deploy/setup --tests")
            return
        }
        let bus = try PrivateBus()
        defer { bus.stop() }
        let notifier = DesktopNotifier(environment: ["PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(notifier.offReason == nil)
        let note = ParentNotification(
            id: 1, kind: .questionPending, createdAt: Date(), childMemberID: "emma", questionID: nil,
            appBundleID: "com.example.chat", answeredBy: nil, choiceID: nil, text: "emma asks to talk to custom:zed")
        try await Task.sleep(for: .milliseconds(300))  // dbus-monitor attaches
        await notifier.show([note], logger: context.logger)
        try await Task.sleep(for: .milliseconds(300))
        let seen = bus.monitored()
        #expect(seen.contains("member=Notify"), "\(seen)")
        #expect(seen.contains("emma asks to talk to custom:zed"))
    }
}

/// A session bus of the test's own (`dbus-daemon --session`), with `dbus-monitor` recording what is sent on it.
final class PrivateBus: @unchecked Sendable {
    let address: String
    private let daemon = Process()
    private let monitor = Process()
    private let log: URL

    init() throws {
        let out = Pipe()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--print-address=1"]
        daemon.standardOutput = out
        // Not the test's own output: the harness waits for every holder of its pipe to close it.
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) { line += out.fileHandleForReading.availableData }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        log = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-\(UUID().uuidString).txt")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        monitor.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
        monitor.arguments = ["--address", address]
        monitor.standardOutput = try FileHandle(forWritingTo: log)
        monitor.standardError = FileHandle.nullDevice
        try monitor.run()
    }

    func monitored() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// SIGKILL: both may have SIGTERM blocked, inherited from the test process.
    func stop() {
        kill(monitor.processIdentifier, SIGKILL)
        kill(daemon.processIdentifier, SIGKILL)
        monitor.waitUntilExit()
        daemon.waitUntilExit()
    }
}
