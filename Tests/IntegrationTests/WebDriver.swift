import Foundation
import HearthFleet

/// A headless Chromium driven through chromedriver's W3C WebDriver HTTP API: just what the page tests need.
final class WebDriver: @unchecked Sendable {
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    }

    private let driver = Process()
    private let base: String
    private var session = ""

    init() async throws {
        let port = Int.random(in: 20_000...60_000)
        base = "http://127.0.0.1:\(port)"
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        // Killed, not terminated, whatever happens next: it may have SIGTERM blocked, inherited from the test.
        do {
            try await waitForSession()
        } catch {
            await quit()
            throw error
        }
    }

    private func waitForSession() async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? await call("GET", "/status")) == nil {
            guard ContinuousClock.now < deadline else { throw FleetError("chromedriver did not start on \(base)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "goog:chromeOptions": [
                        "binary": "/usr/bin/chromium",
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=900,1000",
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

    /// The page's HTML as the browser has it now.
    func source() async throws -> String {
        try await call("GET", "/session/\(session)/source")["value"] as? String ?? ""
    }

    /// A PNG of the window.
    func screenshot() async throws -> Data {
        let text = try await call("GET", "/session/\(session)/screenshot")["value"] as? String ?? ""
        return Data(base64Encoded: text) ?? Data()
    }

    func quit() async {
        if !session.isEmpty { _ = try? await call("DELETE", "/session/\(session)") }
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
    }

    /// One WebDriver command, sent with curl (URLSession on Linux did not reach chromedriver reliably).
    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var arguments = ["-s", "--max-time", "60", "-X", method, base + path]
        if let body {
            let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
            arguments += ["-H", "Content-Type: application/json", "--data-binary", json]
        }
        curl.arguments = arguments
        let output = Pipe()
        curl.standardOutput = output
        curl.standardError = FileHandle.nullDevice
        try curl.run()
        let data = await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        curl.waitUntilExit()
        guard curl.terminationStatus == 0 else {
            throw FleetError("curl \(method) \(path): status \(curl.terminationStatus)")
        }
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
