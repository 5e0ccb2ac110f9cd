import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// parent-device's page through a real headless browser (Chromium over WebDriver), and its token.
@Suite("Parent page across real daemons", .serialized)
struct ParentPageTests {
    static let family = ParentNotificationTests.family

    static func pageURL(_ fleet: Fleet, _ device: String) async throws -> String {
        let file = fleet.directory + "/devices/\(device)/page.url"
        try await fleet.eventually("\(device) published its page") { FileManager.default.fileExists(atPath: file) }
        return try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func http(_ method: String, _ url: String, body: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test
    func aQuestionAppearsOnThePageAndAClickApprovesIt() async throws {
        guard WebDriver.available else {
            Issue.record("chromium and chromium-driver are not installed: run deploy/setup --tests")
            return
        }
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = ResponseCollector(app)
            let url = try await Self.pageURL(fleet, "alice-phone")
            // Some history first: bob answers a question from his phone and changes emma's limits.
            let bob = try await fleet.parent(on: "bob-phone")
            let earlier = ParentNotificationTests.question("sam")
            try await app.ask(earlier)
            _ = try await bob.waitForQuestion(earlier.id)
            try await bob.approve(earlier.id, message: "Have fun with Sam!")
            var limits = try await bob.limits(of: "emma").settings
            limits.screenTime = .contactsAndGroups
            try await bob.setLimits(limits, of: "emma")
            await bob.close()
            let question = ParentNotificationTests.question("mallory")
            try await app.ask(question)
            _ = try await fleet.parent(on: "alice-phone").waitForQuestion(question.id)
            let id = question.id.uuidString.lowercased()

            let browser = try await WebDriver()
            do {
                try await browser.open(url)
                let before = try await browser.source()
                #expect(before.contains("q-\(id)"), "the question is on the page")
                #expect(before.contains("username <bdi>mallory</bdi>"))
                #expect(before.contains("id=\"history-emma\""), "emma's history from the broker")
                #expect(before.contains("bob changed emma"), "\(before)")
                try await browser.click("#approve-\(id)")
                try await fleet.eventually("the app receives the approval") {
                    responses.responses(for: question.id).count == 1
                }
                let response = try #require(responses.responses(for: question.id).first)
                #expect(response.choice.answer == .approval)
                #expect(response.answeredBy == "alice")
                let after = try await browser.source()
                #expect(
                    after.contains(
                        "Approved username <bdi>mallory</bdi> for <bdi>emma</bdi> (answered as <bdi>alice</bdi>)"),
                    "the page says what happened, and for whom")
                #expect(!after.contains("q-\(id)"), "and the question is no longer waiting")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
            await app.close()
        }
    }

    @Test func withoutTheTokenEveryRequestGets401AndChangesNothing() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let url = try await Self.pageURL(fleet, "alice-phone")
            let components = try #require(URLComponents(string: url))
            let base = "http://\(components.host!):\(components.port!)"
            let token = try #require(components.queryItems?.first { $0.name == "token" }?.value)
            let tokenFile = fleet.directory + "/devices/alice-phone/page.token"
            let mode = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try String(contentsOfFile: tokenFile, encoding: .utf8).contains(token))
            #expect(components.host == "127.0.0.1")

            let question = ParentNotificationTests.question("mallory")
            try await app.ask(question)
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(question.id)

            let form = "question=\(question.id.uuidString)&choice=approve"
            #expect(try await Self.http("GET", base + "/").0 == 401)
            #expect(try await Self.http("GET", base + "/?token=wrong").0 == 401)
            #expect(try await Self.http("POST", base + "/answer", body: form).0 == 401)
            #expect(try await Self.http("POST", base + "/answer", body: form + "&token=\(token.dropLast())x").0 == 401)
            #expect(try await alice.pending().contains { $0.question.id == question.id }, "nothing changed")

            let (status, page) = try await Self.http("GET", url)
            #expect(status == 200)
            #expect(page.contains(question.id.uuidString.lowercased()))
            await alice.close()
            await app.close()
        }
    }
}
