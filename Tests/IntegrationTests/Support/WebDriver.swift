import Foundation
import HearthFleet
import HearthService

/// A headless Chromium driven through chromedriver's W3C WebDriver HTTP API: just what the page tests need.
final class WebDriver: @unchecked Sendable {
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    }

    private let driver: SpawnedProcess
    private let base: String
    private let log: String
    private var session = ""

    /// Starts chromedriver on a free loopback port, its output in a log file that failures quote.
    init() async throws {
        let port = try LoopbackPort.free()
        base = "http://127.0.0.1:\(port)"
        log = FileManager.default.temporaryDirectory.appendingPathComponent("chromedriver-\(port).log").path
        driver = try SpawnedProcess.launch(
            "/usr/bin/chromedriver", arguments: ["--port=\(port)", "--verbose"], output: log, append: false)
        do {
            try await waitForSession()
        } catch {
            await quit()
            throw FleetError("\(error)", logs: recentLog())
        }
    }

    /// The last lines chromedriver wrote.
    func recentLog() -> String {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? "(no log)"
        return text.split(separator: "\n").suffix(30).joined(separator: "\n")
    }

    private func waitForSession() async throws {
        // The first start after an install reads a cold disk while the other suites run: allow it a minute.
        let deadline = ContinuousClock.now + .seconds(60)
        while (try? await call("GET", "/status")) == nil {
            guard driver.isRunning else { throw FleetError("chromedriver exited with \(driver.status ?? -1)") }
            guard ContinuousClock.now < deadline else { throw FleetError("chromedriver did not answer on \(base)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "goog:chromeOptions": [
                        "binary": "/usr/bin/chromium",
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=900,1150",
                        ],
                    ]
                ]
            ]
        ]
        let created = try await call("POST", "/session", capabilities)
        guard let id = (created["value"] as? [String: Any])?["sessionId"] as? String else {
            throw FleetError("chromedriver made no session: \(created)")
        }
        session = id
    }

    func open(_ url: String) async throws { _ = try await call("POST", "/session/\(session)/url", ["url": url]) }

    /// The element matching `css`, clicked.
    func click(_ css: String) async throws {
        let found = try await call("POST", "/session/\(session)/element", ["using": "css selector", "value": css])
        guard let element = (found["value"] as? [String: Any])?.values.first as? String else {
            throw FleetError("no element \(css): \(found)")
        }
        _ = try await call("POST", "/session/\(session)/element/\(element)/click", [:])
    }

    /// The address the browser shows now (after redirects).
    func currentURL() async throws -> String {
        try await call("GET", "/session/\(session)/url")["value"] as? String ?? ""
    }

    /// The page's HTML as the browser has it now.
    func source() async throws -> String {
        try await call("GET", "/session/\(session)/source")["value"] as? String ?? ""
    }

    /// What `script` (the body of a function) returns in the page, as JSON decodes it.
    func execute(_ script: String) async throws -> Any? {
        try await call("POST", "/session/\(session)/execute/sync", ["script": script, "args": [Any]()])["value"]
    }

    /// Resizes the window, e.g. to a phone's width.
    func resize(width: Int, height: Int) async throws {
        _ = try await call("POST", "/session/\(session)/window/rect", ["width": width, "height": height])
    }

    /// A PNG of the window.
    func screenshot() async throws -> Data {
        let text = try await call("GET", "/session/\(session)/screenshot")["value"] as? String ?? ""
        return Data(base64Encoded: text) ?? Data()
    }

    func quit() async {
        if !session.isEmpty { _ = try? await call("DELETE", "/session/\(session)") }
        kill(driver.pid, SIGKILL)
        _ = await driver.waitUntilExit()
        try? FileManager.default.removeItem(atPath: log)
    }

    /// One WebDriver command, sent with curl (URLSession on Linux did not reach chromedriver reliably).
    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("webdriver-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        var arguments = ["-s", "-S", "--max-time", "60", "-X", method, base + path, "-o", output.path]
        if let body {
            let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
            arguments += ["-H", "Content-Type: application/json", "--data-binary", json]
        }
        let curl = try SpawnedProcess.launch("/usr/bin/curl", arguments: arguments)
        let status = await curl.waitUntilExit()
        guard status == 0 else { throw FleetError("curl \(method) \(path): status \(status)") }
        let data = try Data(contentsOf: output)
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
