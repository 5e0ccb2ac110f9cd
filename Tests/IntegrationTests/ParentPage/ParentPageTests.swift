import Foundation
import HearthCore
import HearthFleet
import HearthLoad
import PermissionKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// parent-device's page through a real headless browser (Chromium over WebDriver), and its token.
@Suite("Parent page across real daemons", .serialized, .tags(.fleet))
struct ParentPageTests {
    static let family = ParentNotificationTests.family

    static func pageURL(_ fleet: Fleet, _ device: String) async throws -> String {
        let file = fleet.directory + "/devices/\(device)/page.url"
        try await fleet.eventually("\(device) published its page") { FileManager.default.fileExists(atPath: file) }
        return try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func http(
        _ method: String, _ url: String, body: String? = nil, bearer: String? = nil
    ) async throws -> (
        Int, String
    ) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// The token for scripts (`page.token`), once the page is published.
    static func bearer(_ fleet: Fleet, _ device: String) async throws -> String {
        _ = try await pageURL(fleet, device)
        let file = fleet.directory + "/devices/\(device)/page.token"
        return try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The page's port and the URL token in `page.url` now.
    static func address(_ fleet: Fleet, _ device: String) async throws -> (port: Int, token: String) {
        let components = try #require(URLComponents(string: try await pageURL(fleet, device)))
        let token = try #require(components.queryItems?.first { $0.name == "token" }?.value)
        return (try #require(components.port), token)
    }

    /// `GET /` as a script gets it (`Authorization: Bearer` with `page.token`).
    static func page(_ fleet: Fleet, _ device: String) async throws -> (Int, String) {
        let (port, _) = try await address(fleet, device)
        return try await http("GET", "http://127.0.0.1:\(port)/", bearer: try await bearer(fleet, device))
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
            let bearer = try await Self.bearer(fleet, "alice-phone")
            for file in ["page.token", "page.url"] {
                let path = fleet.directory + "/devices/alice-phone/" + file
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file)")
            }
            #expect(bearer != token, "the token for scripts never travels in a URL")
            #expect(components.host == "127.0.0.1")

            let question = ParentNotificationTests.question("mallory")
            try await app.ask(question)
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(question.id)

            let form = "question=\(question.id.uuidString)&choice=approve"
            #expect(try await Self.http("GET", base + "/").0 == 401)
            #expect(try await Self.http("GET", base + "/?token=wrong").0 == 401)
            #expect(try await Self.http("POST", base + "/answer", body: form).0 == 401)
            #expect(try await Self.http("POST", base + "/answer", body: form + "&token=\(token)").0 == 401)
            #expect(try await Self.http("POST", base + "/answer?token=\(token)", body: form).0 == 401)
            #expect(try await Self.http("GET", base + "/", bearer: token).0 == 401, "the URL token is no Bearer token")
            #expect(try await alice.pending().contains { $0.question.id == question.id }, "nothing changed")

            let (status, page) = try await Self.http("GET", base + "/", bearer: bearer)
            #expect(status == 200)
            #expect(page.contains(question.id.uuidString.lowercased()))
            await alice.close()
            await app.close()
        }
    }

    /// As notebook servers do: the first load trades the URL token for an HttpOnly, SameSite=Strict cookie and
    /// leaves it out of the address; the token is then spent (a copy read from a browser's command line by another
    /// user opens nothing) and `page.url` holds the next one.
    @Test func theFirstLoadTradesTheURLTokenForACookie() async throws {
        guard WebDriver.available else {
            Issue.record("chromium and chromium-driver are not installed: run deploy/setup --tests")
            return
        }
        try await Fleet.with(Self.family) { fleet in
            let url = try await Self.pageURL(fleet, "alice-phone")
            let (port, token) = try await Self.address(fleet, "alice-phone")
            let browser = try await WebDriver()
            do {
                try await browser.open(url)
                let shown = try await browser.currentURL()
                #expect(!shown.contains(token), "the token is gone from the address bar: \(shown)")
                #expect(shown == "http://127.0.0.1:\(port)/", "\(shown)")
                let first = try await browser.source()
                #expect(first.contains("Hearth") && !first.contains("401"), "the page, through the cookie: \(first)")
                try await browser.open("http://127.0.0.1:\(port)/")
                let second = try await browser.source()
                #expect(second.contains("Hearth") && !second.contains("401"), "the cookie alone opens it again")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()

            let again = try await RawHTTP(port: port).send("GET", "/?token=\(token)")
            #expect(again.status == 401, "the URL token a second time, from another client: \(again.head)")
            #expect(again.header("Set-Cookie") == nil)
            let (_, next) = try await Self.address(fleet, "alice-phone")
            #expect(next != token, "page.url holds a new token")
            let exchanged = try await RawHTTP(port: port).send("GET", "/?token=\(next)&notice=hi")
            #expect(exchanged.status == 303)
            #expect(exchanged.header("Location") == "/?notice=hi")
            let cookie = try #require(exchanged.header("Set-Cookie"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            let session = String(cookie.prefix { $0 != ";" })
            let page = try await RawHTTP(port: port).send("GET", "/", headers: ["Cookie": session])
            #expect(page.status == 200)
            #expect(try await RawHTTP(port: port).send("GET", "/", headers: ["Cookie": session + "x"]).status == 401)
        }
    }

    /// Refused from the head alone: no token (1 MB and 100 MB bodies, unread: the daemon's memory does not grow by
    /// them), a body over 64 KiB even with the token (413), a form from another origin (403).
    @Test func bodiesAreRefusedBeforeTheyAreRead() async throws {
        try await Fleet.with(Self.family) { fleet in
            let (port, _) = try await Self.address(fleet, "alice-phone")
            let bearer = try await Self.bearer(fleet, "alice-phone")
            let pid = try #require(try fleet.daemon("alice-phone").pid)
            // The peak (VmHWM), not the resident size after: a body read and freed again leaves no trace in VmRSS.
            let before = try #require(ProcessSample.read(pid))
            let megabyte = try await RawHTTP(port: port).send("POST", "/answer", bodyBytes: 1 << 20)
            #expect(megabyte.status == 401, "\(megabyte.head)")
            let large = try await RawHTTP(port: port).send("POST", "/answer", bodyBytes: 100 << 20)
            #expect(large.status == 401 || large.status == nil, "\(large.head)")
            let after = try #require(ProcessSample.read(pid))
            #expect(
                after.peakResidentKiB < max(before.peakResidentKiB, before.residentKiB + 32 * 1024),
                "peak \(before.peakResidentKiB) KiB (resident \(before.residentKiB)), then \(after.peakResidentKiB) KiB"
            )

            let form = Data(("choice=approve&message=" + String(repeating: "a", count: 65 * 1024)).utf8)
            let big = try await RawHTTP(port: port).send(
                "POST", "/answer", headers: ["Authorization": "Bearer \(bearer)"], body: form)
            #expect(big.status == 413, "\(big.head)")

            let (_, token) = try await Self.address(fleet, "alice-phone")
            let exchanged = try await RawHTTP(port: port).send("GET", "/?token=\(token)")
            let session = String(try #require(exchanged.header("Set-Cookie")).prefix { $0 != ";" })
            let foreign = try await RawHTTP(port: port).send(
                "POST", "/answer", headers: ["Cookie": session, "Origin": "http://127.0.0.1:9"],
                body: Data("choice=approve".utf8))
            #expect(foreign.status == 403, "a form from another local server's page: \(foreign.head)")
            let own = try await RawHTTP(port: port).send(
                "POST", "/answer", headers: ["Cookie": session, "Origin": "http://127.0.0.1:\(port)"],
                body: Data("choice=approve".utf8))
            #expect(own.status == 303, "\(own.head)")
        }
    }

    /// DNS rebinding: a web page that points its own name at 127.0.0.1 still sends that name as `Host`. And no page
    /// may frame this one.
    @Test func aForeignHostIsRefusedAndNoPageMayFrameIt() async throws {
        try await Fleet.with(Self.family) { fleet in
            let (port, _) = try await Self.address(fleet, "alice-phone")
            let authorization = ["Authorization": "Bearer \(try await Self.bearer(fleet, "alice-phone"))"]
            for host in ["rebind.example:\(port)", "127.0.0.1:\(port + 1)", "127.0.0.2:\(port)"] {
                let reply = try await RawHTTP(port: port, host: host).send("GET", "/", headers: authorization)
                #expect(reply.status == 421, "Host \(host): \(reply.head)")
            }
            for host in ["127.0.0.1:\(port)", "localhost:\(port)"] {
                let reply = try await RawHTTP(port: port, host: host).send("GET", "/", headers: authorization)
                #expect(reply.status == 200, "Host \(host): \(reply.head)")
                #expect(reply.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
                #expect(reply.header("X-Frame-Options") == "DENY")
            }
            let refused = try await RawHTTP(port: port).send("GET", "/")
            #expect(refused.header("X-Frame-Options") == "DENY", "refusals too")
        }
    }
}
