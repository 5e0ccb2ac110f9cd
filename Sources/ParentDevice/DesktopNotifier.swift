public import Foundation
import HearthCore
import HearthService
import Logging
import Synchronization

/// Shows a parent's notifications on the desktop through the freedesktop notification service
/// (`org.freedesktop.Notifications.Notify` on the session bus, called with `gdbus`). Off when there is no session
/// bus or no `gdbus`, which it says once in the log.
public final class DesktopNotifier: Sendable {
    /// Why it is off, or nil when it is on.
    public let offReason: String?
    private let gdbus: String
    private let environment: [String: String]
    private let saidOff = Atomic<Bool>(false)
    /// At most this many are shown at once (a new device syncing an old log); the rest are summed up in one.
    static let maxShownAtOnce = 5

    /// A notifier for this process's environment: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        var environment = environment
        let gdbus = Self.find("gdbus", in: environment["PATH"] ?? "/usr/bin:/bin")
        self.gdbus = gdbus ?? ""
        if environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty ?? true, let runtime = environment["XDG_RUNTIME_DIR"],
            FileManager.default.fileExists(atPath: runtime + "/bus")
        {
            environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(runtime)/bus"
        }
        self.environment = environment
        if environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty ?? true {
            offReason = "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
        } else if gdbus == nil {
            offReason = "gdbus is not installed (Debian: libglib2.0-bin)"
        } else {
            offReason = nil
        }
    }

    /// Shows `notifications` (the newest few, and a count of the rest); when off, says so once in `logger`.
    func show(_ notifications: [ParentNotification], logger: Logger) async {
        guard !notifications.isEmpty else { return }
        if let offReason {
            if !saidOff.exchange(true, ordering: .relaxed) {
                logger.notice("desktop notifications off: \(offReason)")
            }
            return
        }
        let shown = notifications.suffix(Self.maxShownAtOnce)
        if notifications.count > shown.count {
            await notify(title: "Hearth", body: "\(notifications.count - shown.count) earlier notifications", logger)
        }
        for notification in shown {
            await notify(title: Self.plain(Self.title(notification)), body: Self.body(notification.text), logger)
        }
    }

    static func title(_ notification: ParentNotification) -> String {
        switch notification.kind {
        case .questionPending: "\(notification.childMemberID) asks"
        case .questionAnswered: "Question answered"
        case .questionExpired: "Question expired"
        case .questionClosed: "Question closed"
        case .questionReminder: "Question expires soon"
        case .questionWithdrawn: "Question withdrawn"
        case .settingsChanged: "\(notification.childMemberID)'s settings changed"
        case .updateAcknowledged: "\(notification.childMemberID) acknowledged an app update"
        }
    }

    /// A notification's body as the service gets it: the text an app and a child control (handles, names, the note)
    /// with its markup escaped (`&`, `<`, `>`: servers that render body markup would follow `<a href>` or load
    /// `<img>`) and its control and bidirectional characters written as escapes (`\u{1B}`).
    static func body(_ text: String) -> String {
        var body = ""
        for character in ShortText.escaped(text) {
            switch character {
            case "&": body += "&amp;"
            case "<": body += "&lt;"
            case ">": body += "&gt;"
            default: body.append(character)
            }
        }
        return body
    }

    /// A title, which the service shows as plain text: only its controls escaped.
    static func plain(_ text: String) -> String { ShortText.escaped(text) }

    /// `text` as a GVariant string literal: `gdbus call` parses each argument as GVariant text first, so a body that
    /// happened to read as one (`'x'`, `"x"`) would otherwise lose its quotes.
    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func notify(title: String, body: String, _ logger: Logger) async {
        let arguments = [
            "call", "--session", "--dest", "org.freedesktop.Notifications",
            "--object-path", "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.Notify",
            "Hearth", "0", "", Self.literal(title), Self.literal(body), "[]", "{}", "10000",
        ]
        // posix_spawn, not Foundation's `Process`: its `run()` can crash this daemon (see `SpawnedProcess`). The exit
        // is awaited without holding a thread of the cooperative pool.
        let status: Int32
        do {
            let process = try SpawnedProcess.launch(gdbus, arguments: arguments, base: environment)
            status = await process.waitUntilExit()
        } catch {
            status = -1
        }
        if status != 0 {
            logger.warning("desktop notification failed: gdbus exited with status \(status)")
        }
    }

    private static func find(_ tool: String, in path: String) -> String? {
        path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
