import Foundation
import GRDB
import HearthCore
import HearthProtocol
import HearthService
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

    init() async throws {
        store = try await temporaryStore { ParentStore.migrate(&$0) }
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

        let reopened = try await openedStore(path: path) { ParentStore.migrate(&$0) }
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

    @Test func desktopBodiesEscapeMarkupAndControls() async throws {
        let text =
            "emma asks to talk to custom:<a href=\"https://evil.example\">grandma</a><img src=x> & "
            + "stranger\u{1B}[2K\rgran\u{202E}ma — \"it's 'fine'\""
        let body = DesktopNotifier.body(text)
        #expect(
            body
                == #"emma asks to talk to custom:&lt;a href="https://evil.example"&gt;grandma&lt;/a&gt;&lt;img src=x&gt; "#
                + #"&amp; stranger\u{1B}[2K\u{D}gran\u{202E}ma — "it's 'fine'""#)
        #expect(DesktopNotifier.plain("emma\u{1B}[31m's settings changed") == #"emma\u{1B}[31m's settings changed"#)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-monitor"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/gdbus")
        else {
            Issue.record("dbus-daemon, dbus-monitor or gdbus is not installed: run deploy/setup --tests")
            return
        }
        // Through the real service call: the body arrives escaped, whole, its quotes kept.
        let bus = try PrivateBus()
        defer { bus.stop() }
        let notifier = DesktopNotifier(environment: ["PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": bus.address])
        let note = ParentNotification(
            id: 1, kind: .questionPending, createdAt: Date(), childMemberID: "emma", questionID: nil,
            appBundleID: "com.example.chat", answeredBy: nil, choiceID: nil, text: text)
        try await Task.sleep(for: .milliseconds(300))  // dbus-monitor attaches
        await notifier.show([note], logger: context.logger)
        try await Task.sleep(for: .milliseconds(300))
        let seen = bus.monitored()
        #expect(seen.contains("&lt;img src=x&gt;") && !seen.contains("<img"), "\(seen)")
        #expect(seen.contains(#"stranger\u{1B}[2K"#) && !seen.contains("\u{1B}"), "\(seen)")
        #expect(seen.contains("it's 'fine'"), "\(seen)")
    }
}

/// A session bus of the test's own (`dbus-daemon --session`), with `dbus-monitor` recording what is sent on it.
/// Started through `SpawnedProcess`, not Foundation's `Process` (whose `run()` can crash the test process on Linux).
final class PrivateBus: Sendable {
    let address: String
    private let daemon: SpawnedProcess
    private let monitor: SpawnedProcess
    private let log: String
    private let addressFile: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("bus-\(UUID().uuidString)").path
        addressFile = base + ".address"
        log = base + ".monitor.txt"
        daemon = try SpawnedProcess.launch(
            "/usr/bin/dbus-daemon", arguments: ["--session", "--nofork", "--print-address=1"], output: addressFile,
            append: false)
        let deadline = ContinuousClock.now + .seconds(10)
        var printed = ""
        while !printed.contains("\n"), ContinuousClock.now < deadline {
            usleep(10_000)
            printed = (try? String(contentsOfFile: addressFile, encoding: .utf8)) ?? ""
        }
        address = printed.split(separator: "\n").first.map(String.init) ?? ""
        monitor = try SpawnedProcess.launch(
            "/usr/bin/dbus-monitor", arguments: ["--address", address], output: log, append: false)
        if address.isEmpty { throw CocoaError(.fileReadUnknown) }
    }

    func monitored() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func stop() {
        kill(monitor.pid, SIGKILL)
        kill(daemon.pid, SIGKILL)
        while monitor.isRunning || daemon.isRunning { usleep(10_000) }
        try? FileManager.default.removeItem(atPath: log)
        try? FileManager.default.removeItem(atPath: addressFile)
    }
}
