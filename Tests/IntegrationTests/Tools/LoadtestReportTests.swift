import Foundation
import Testing

/// What a person looks at after a load test: `cycle --report`'s page opened in a real headless browser (Chromium over
/// WebDriver), and `compare`'s A/B of two committed reports. A short run, not a benchmark: no figure is asserted,
/// only that the page shows what it must.
@Suite("hearth-loadtest report")
struct LoadtestReportTests {
    static var repository: URL { RepositoryRoot.url }
    /// Two `cycle --json` reports of short debug runs (20/s and 40/s), outside the test target's folder.
    static var fixtures: URL { repository.appendingPathComponent("Tests/LoadtestFixtures") }

    @Test
    func theCyclePageShowsTheDistributionsVerdictsAndWarnings() async throws {
        guard WebDriver.available else {
            Issue.record("chromium and chromium-driver are not installed: run deploy/setup --tests")
            return
        }
        let directory = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (status, text) = try await ExecutableRun.run(
            "hearth-loadtest",
            [
                "cycle", "--families", "2", "--rate", "30", "--duration", "1.5", "--warmup", "1", "--baseline",
                "--quiet", "--json", directory + "/run.json", "--report", directory + "/page",
            ], timeout: .seconds(300))
        #expect(status == 0, "hearth-loadtest failed:\n\(text)")
        #expect(text.contains("closed loop ≥ 0.5 × the relay's cycles/s: needs --closed --baseline"), "\(text)")

        let json = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: directory + "/run.json")))
        let report = json as? [String: Any]
        let broker = report?["broker"] as? [String: Any]
        let histogram = broker?["latencyHistogram"] as? [String: Any]
        #expect((histogram?["counts"] as? [Int])?.reduce(0, +) ?? 0 > 0, "the full histogram is kept")
        #expect((broker?["timeline"] as? [Any])?.isEmpty == false, "a sample per second")
        // Below saturation both complete the offered rate: the relay is compared by latency, not by a throughput
        // ratio of 1.000. A loaded machine may stall the broker below the rate, so the test follows the figures.
        let relay = report?["baseline"] as? [String: Any]
        let completed = [broker, relay].allSatisfy { ($0?["cyclesPerSecond"] as? Double ?? 0) >= 0.9 * 30 }
        let comparison = report?["relayComparison"] as? [String: Any]
        #expect(comparison?["belowSaturation"] as? Bool == completed, "\(String(describing: comparison))")
        if completed {
            #expect(text.contains("broker / raw relay latency: p50 "), "\(text)")
            #expect(!text.contains("broker / raw relay throughput"), "\(text)")
        } else {
            #expect(text.contains("broker / raw relay throughput: "), "\(text)")
            #expect(text.contains("(at saturation); latency: p50 "), "\(text)")
        }

        let browser = try await WebDriver()
        do {
            try await browser.open("file://\(directory)/page/index.html")
            try await checkCyclePage(browser)
            try await keepScreenshot(browser)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// The page as the browser built it: each plot's series, a verdict per target, the banner of a debug build.
    func checkCyclePage(_ browser: WebDriver) async throws {
        func series(_ plot: String) async throws -> [String] {
            let script = "return [...document.querySelectorAll('#\(plot) path.series')].map(e => e.dataset.series)"
            return try await browser.execute(script) as? [String] ?? []
        }
        #expect(try await series("latency-plot") == ["broker", "relay"])
        #expect(try await series("throughput-plot") == ["broker", "relay"])
        #expect(try await series("cpu-plot") == ["broker", "relay"])
        let length = try await browser.execute(
            "return document.querySelector('#latency-plot path[data-series=broker]').getTotalLength()")
        #expect((length as? Double ?? 0) > 100, "the broker's curve is drawn, not a point")
        let verdicts =
            try await browser.execute(
                "return [...document.querySelectorAll('#verdicts li')].map(e => e.dataset.target + ' ' + e.className)")
            as? [String] ?? []
        #expect(verdicts.count == 3, "\(verdicts)")
        #expect(verdicts.contains("cpu-per-cycle verdict not-measured"), "an open loop does not measure it")
        #expect(verdicts.contains { $0.hasPrefix("open-loop-latency verdict ") && !$0.hasSuffix("not-measured") })
        let banner = try await browser.execute(
            "const b = document.getElementById('debug-banner'); return b ? b.textContent : ''")
        #if DEBUG
        #expect((banner as? String)?.hasPrefix("DEBUG BUILD") == true, "\(String(describing: banner))")
        #else
        #expect((banner as? String)?.isEmpty == true, "\(String(describing: banner))")
        #endif
        let rows = try await browser.execute(
            "return document.querySelector('#figures tr[data-row=messagespercycle] td').textContent")
        #expect(Double(rows as? String ?? "") ?? 0 > 0, "messages per cycle: \(String(describing: rows))")
    }

    /// The README's picture: written to docs/ when `HEARTH_SCREENSHOTS=1`, so that a test run leaves the tree clean.
    func keepScreenshot(_ browser: WebDriver) async throws {
        try await browser.resize(width: 900, height: 1500)
        let png = try await browser.screenshot()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        if ProcessInfo.processInfo.environment["HEARTH_SCREENSHOTS"] == "1" {
            try png.write(to: Self.repository.appendingPathComponent("docs/loadtest-report.png"))
        }
    }

    @Test
    func compareTabulatesTwoReportsAndPlotsThem() async throws {
        let directory = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a = Self.fixtures.appendingPathComponent("loadtest-a.json").path
        let b = Self.fixtures.appendingPathComponent("loadtest-b.json").path
        let (status, text) = try await ExecutableRun.run(
            "hearth-loadtest", ["compare", a, b, "--report", directory + "/ab"], timeout: .seconds(60))
        #expect(status == 0, "\(text)")
        for line in [
            "run     figure              A      B   B vs A",
            "broker  cycles/s        20.00  40.00  +100.0%",
            "broker  p99 ms          46.40  90.09   +94.2%",
            "broker  lost                0      0",
        ] {
            #expect(text.contains(line + "\n"), "missing \"\(line)\" in:\n\(text)")
        }
        #expect(text.contains("A: DEBUG BUILD"), "the fixtures came from a debug build, and compare says so")
        #expect(text.contains("different loads: A open loop at 20/s, 2 families, 4 devices; B open loop at 40/s"))
        let page = try String(contentsOfFile: directory + "/ab/index.html", encoding: .utf8)
        #expect(page.contains("data-series=\"a-broker\" d=\"M"), "A's curve")
        #expect(page.contains("data-series=\"b-broker\" d=\"M"), "B's curve")
        #expect(page.contains("id=\"a-debug-banner\">A: DEBUG BUILD"), "each run's warnings, named")
        #expect(!page.contains("http://") && !page.contains("https://"), "nothing fetched")
    }

    @Test
    func compareRefusesAFileThatIsNotAReport() async throws {
        let directory = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: directory + "/bad.json"))
        let a = Self.fixtures.appendingPathComponent("loadtest-a.json").path
        let (status, text) = try await ExecutableRun.run(
            "hearth-loadtest", ["compare", a, directory + "/bad.json"], timeout: .seconds(60))
        #expect(status != 0)
        #expect(text.contains("cannot read the reports"), "\(text)")
    }
}
