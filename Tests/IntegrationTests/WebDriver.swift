import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? await call("GET", "/status")) == nil {
            guard ContinuousClock.now < deadline else { throw FleetError("chromedriver did not start on \(base)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": ["goog:chromeOptions": [
            "binary": "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=900,1000"],
        ]]]]
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
        driver.terminate()
        driver.waitUntilExit()
    }

    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.timeoutInterval = 60
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
