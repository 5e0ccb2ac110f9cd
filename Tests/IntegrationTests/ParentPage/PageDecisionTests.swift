import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// parent-device's page as a parent decides from it, through a real headless browser against real daemons: who asks
/// to do what with whom (name, avatar, handle and actions in words), when, how many wait, what an answer did, and new
/// questions arriving without a reload, in a desktop and a phone-sized window.
@Suite("Parent page a parent can decide from", .serialized, .tags(.fleet))
struct PageDecisionTests {
    /// A 64 × 64 PNG of a person, as an app would send it.
    static let avatar = [UInt8](
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAACFklEQVR42tXPRXIcQRSE4TyODuGT6BB5ETGzNGLYmZlJZrZkSyaZ2WuvvKjNRHi6pvrlm5muiG+ff+LPFrOG31vMGn5tMmv4ucms4ccGs4bvG8wavq0za/i6zqzhyxp9dR/qinCfw+c1eomn13McxadVukivD7x28XGVurL1gcs0PqxQZKsP9HW8X6FCqQ/EABws00yvD5QGvFummdcBpQFvl2jmdUBpwJsl2njVB+YMvF6kje8BcwZeLdLG94A5A/s1Kv4ebIvEAOzVaKbXB0oDXi7QzOuA0oAXCzTzOqA0YHeeZl4HlAbszNPM64DSgOdzNPM6oDTg2RzNvA4oDXg6S4VeLwbgySwV+gExAI9nKFLq9XU8mqFIOaCv4+E0dbZ6l2k8mKaLsvVeu7g/RS/p9Y6juDdFX/F09zncnWTWcGeSWcPtCWYNtyaYNWyPM2u4Oc6s4cYYs4brY/TS1V1L5DiKa6MUpXf/T1/H1VGaKen1lAZcGaGBV3o9Wwkuj7CsVtQHhhhcGmYprasPyvbg4jATtTq9XnoVLgwxRTvrg8QwnB9iivYfSAzDuUE21f76IKUNZwcZ16n6oGkezgwwrrMHmubh9AAjOlsfxAtxqp8RVTgQL8TJfhapQn0QicSJPhapzoFIJI73sUh1DkQicayXDVWnPijqxNFeNlS1A0WdONLDhqp2oKgTh3vYUNUOFHX+A0TakIQvNZAuAAAAAElFTkSuQmCC"
        )!)

    static func leo() -> PermissionQuestion<CommunicationTopic> {
        var name = PersonNameComponents()
        name.givenName = "Leo"
        name.familyName = "Martin"
        let person = PersonInformation(
            handle: CommunicationHandle(value: "dragonslayer42", kind: .custom), nameComponents: name,
            avatarImage: avatar)
        let question = PermissionQuestion(
            communicationTopic: CommunicationTopic(personInformation: [person], actions: [.message, .videoCall]))
        question.expirationDate = Date().addingTimeInterval(3 * 86400)
        question.note = "Leo is in my class, we do the science project together"
        return question
    }

    @Test func thePageShowsWhoAsksForWhatAndUpdatesItself() async throws {
        guard WebDriver.available else {
            Issue.record("chromium and chromium-driver are not installed: run deploy/setup --tests")
            return
        }
        try await Fleet.with(ParentPageTests.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let alice = try await fleet.parent(on: "alice-phone")
            let leo = Self.leo()
            try await app.ask(leo)
            _ = try await alice.waitForQuestion(leo.id)
            let url = try await ParentPageTests.pageURL(fleet, "alice-phone")
            let id = leo.id.uuidString.lowercased()

            let browser = try await WebDriver()
            do {
                try await browser.open(url)
                @Sendable func text(_ css: String) async throws -> String { try await Self.text(browser, css) }
                try await Self.expectFirstCard(browser, id: id)

                // A new question shows up by itself; the page was not reloaded (its marker and a half-typed message
                // survive). Its second person's address is longer than a phone's window is wide.
                _ = try await browser.execute(
                    "window.hearthMarker = 'kept'; document.getElementById('message-\(id)').value = 'half'; return null;"
                )
                let long = "a.very.long.address.that.would.run.out.of.its.card@school-district.example"
                let second = PermissionQuestion(
                    communicationTopic: CommunicationTopic(
                        personInformation: [
                            PersonInformation(
                                handle: CommunicationHandle(value: "+1 555 123 4567", kind: .phoneNumber)),
                            PersonInformation(handle: CommunicationHandle(value: long, kind: .emailAddress)),
                        ], actions: [.call]))
                try await app.ask(second)
                let secondID = second.id.uuidString.lowercased()
                try await fleet.eventually("the new question appears without a reload") {
                    ((try? await text("#q-\(secondID) .handle")) ?? "") == "phone +1 555 123 4567"
                }
                #expect(try await text("#person-\(secondID)-1 .handle") == "email \(long)")
                #expect(try await text("#waiting-count") == "2 questions")
                #expect(try await browser.execute("return window.hearthMarker") as? String == "kept")
                let typed = try await browser.execute(
                    "const field = document.getElementById('message-\(id)'); const v = field.value; field.value = ''; return v;"
                )
                #expect(typed as? String == "half")
                #expect(try await text("#q-\(secondID) .ask") == "emma wants to call these people in com.example.chat")

                let screenshot = ProcessInfo.processInfo.environment["HEARTH_PAGE_SCREENSHOT"]
                if let path = screenshot {
                    try await browser.resize(width: 1000, height: 1100)
                    try await browser.screenshot().write(to: URL(fileURLWithPath: path))
                }
                try await browser.resize(width: 420, height: 900)
                if let path = screenshot?.replacingOccurrences(of: ".png", with: "-phone.png") {
                    try await browser.screenshot().write(to: URL(fileURLWithPath: path))
                }
                let fits = "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
                #expect(try await browser.execute(fits) as? Bool == true, "nothing runs out of a phone's window")

                try await browser.click("#decline-\(id)")
                try await fleet.eventually("the page says what the answer was and for whom") {
                    ((try? await text("#notice")) ?? "").hasPrefix("Declined")
                }
                #expect(
                    try await text("#notice")
                        == "Declined Leo Martin (username dragonslayer42) for emma (answered as alice).")
                #expect(try await text("#waiting-count") == "1 question")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
            await alice.close()
            await app.close()
        }
    }

    /// The text of the first element `css` selects, or a stand-in naming the selector.
    static func text(_ browser: WebDriver, _ css: String) async throws -> String {
        let script = "const e = document.querySelector('\(css)'); return e ? e.textContent : null;"
        return try await browser.execute(script) as? String ?? "(no \(css))"
    }

    /// Leo's card: who, what, when, the count waiting and the avatar loaded under the page's policy.
    static func expectFirstCard(_ browser: WebDriver, id: String) async throws {
        @Sendable func text(_ css: String) async throws -> String { try await Self.text(browser, css) }
        #expect(try await text("#person-\(id)-0 .name") == "Leo Martin")
        #expect(try await text("#person-\(id)-0 .handle") == "username dragonslayer42")
        #expect(
            try await text("#q-\(id) .ask")
                == "emma wants to message and video call this person in com.example.chat")
        let when = try await text("#q-\(id) .when")
        #expect(
            when.hasPrefix("asked just now ·") || when.contains(" minute ago ·")
                || when.contains(" minutes ago ·"), "\(when)")
        #expect(when.hasSuffix("expires in 3 days"), "\(when)")
        let tooltip = try await browser.execute("return document.querySelector('#q-\(id) time').title")
        #expect((tooltip as? String)?.contains(String(Calendar.current.component(.year, from: Date()))) == true)
        #expect(try await text("#waiting-count") == "1 question")
        let loaded = try await browser.execute(
            "const i = document.getElementById('avatar-\(id)-0'); return i && i.complete ? i.naturalWidth : 0;")
        #expect(loaded as? Int == 64, "the avatar loads under the page's policy")
    }
}
