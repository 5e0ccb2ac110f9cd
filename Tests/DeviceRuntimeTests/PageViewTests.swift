import Foundation
import HearthCore
import Testing

@testable import ParentDevice

/// The page's renderer on questions an adversarial app could send: the buttons follow each choice's answer, and text
/// the app or the child controls cannot reorder the page.
struct PageViewTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_300)

    static func card(_ question: Question) -> String {
        PageView.card(Fixtures.asked(question), now: now)
    }

    /// The `<button>` elements of a card, each from its opening tag to its end.
    static func buttons(_ html: String) -> [Substring] {
        html.components(separatedBy: "<button ").dropFirst().map { $0.prefix { $0 != "\n" } }
            .map { $0[..<($0.range(of: "</button>")?.lowerBound ?? $0.endIndex)] }
    }

    @Test func anApprovalTitledDeclineIsAnApproveButtonWithTheAppsTitleBeside() {
        var question = Fixtures.question("sam")
        question.choices = [
            PermissionChoice(id: "decline", title: "Decline", answer: .approval),
            PermissionChoice(id: "no", title: "Not now", answer: .denial),
        ]
        question.defaultChoiceID = "no"
        let buttons = Self.buttons(Self.card(question))
        #expect(buttons.count == 2)
        let approve = String(buttons[0])
        #expect(approve.hasPrefix("type=\"submit\" class=\"approve\" name=\"choice\" value=\"decline\""), "\(approve)")
        #expect(approve.contains(">Approve <span class=\"title\">the app calls it “<bdi>Decline</bdi>”</span>"))
        let decline = String(buttons[1])
        #expect(decline.contains("class=\"decline\" name=\"choice\" value=\"no\""), "\(decline)")
        #expect(decline.contains(">Decline <span class=\"title\">the app calls it “<bdi>Not now</bdi>”</span>"))
    }

    @Test func theStandardChoicesAreLabelledOnce() {
        let buttons = Self.buttons(Self.card(Fixtures.question("sam")))
        #expect(buttons.map { String($0.drop { $0 != ">" }) } == [">Approve", ">Decline"])
    }

    @Test func aHandleWithARightToLeftOverrideIsIsolatedEscapedAndShown() {
        let handle = CommunicationHandle(value: "evil\u{202E}moc.elpmaxe@amdnarg<b>", kind: .emailAddress)
        var name = PersonNameComponents()
        name.givenName = "Gran\u{202E}dma"
        let person = PersonInformation(handle: handle, nameComponents: name)
        var question = Fixtures.question("x")
        question.topic = .communication(CommunicationTopic(personInformation: [person], actions: [.message]))
        question.note = "hi \u{2067}there"
        let html = Self.card(question)
        #expect(!html.unicodeScalars.contains { PageHTML.isHidden($0) }, "no control character reaches the page")
        #expect(
            html.contains(
                "<span class=\"handle\">email <bdi>evil<span class=\"ctl\">U+202E</span>moc.elpmaxe@amdnarg&lt;b&gt;</bdi>"
            ), "\(html)")
        #expect(html.contains("<span class=\"name\"><bdi>Gran<span class=\"ctl\">U+202E</span>dma</bdi></span>"))
        #expect(html.contains("“<bdi>hi <span class=\"ctl\">U+2067</span>there</bdi>”"))
    }

    @Test func theNoticeNamesWhomAndForWhomWithTheAppsTextIsolated() {
        var question = Fixtures.question("dragon\u{202E}slayer42")
        question.choices = [PermissionChoice(id: "yes", title: "Decline", answer: .approval), .decline]
        let resolution = Fixtures.resolution(question, choice: question.choices[0])
        let notice = PageWords.notice(resolution, asked: Fixtures.asked(question))
        let html = PageHTML.notice(notice)
        #expect(
            html
                == "Approved username <bdi>dragon\u{FFFD}slayer42</bdi> for <bdi>emma</bdi> (answered as <bdi>alice</bdi>)."
        )
        let unbalanced = PageHTML.notice("a\u{2068}<b>\u{2068}\u{2069}\u{2069}\u{2069}c\u{2068}")
        #expect(unbalanced == "a<bdi>&lt;b&gt;<bdi></bdi></bdi>c<bdi></bdi>")
    }

    @Test func actionsTimesAndLimitsReadAsWords() {
        #expect(PageWords.actions([.videoCall, .message]) == "message and video call")
        #expect(PageWords.actions([.follow, .beFollowed, .chat]) == "chat with, follow and be followed by")
        #expect(PageWords.actions([]) == "talk to")
        #expect(PageWords.relative(Self.now.addingTimeInterval(-300), now: Self.now) == "5 minutes ago")
        #expect(PageWords.relative(Self.now.addingTimeInterval(3 * 86400 - 5), now: Self.now) == "in 3 days")
        #expect(PageWords.relative(Self.now.addingTimeInterval(-10), now: Self.now) == "just now")
        #expect(PageWords.relative(Self.now.addingTimeInterval(-3600), now: Self.now) == "1 hour ago")
        let limits = CommunicationSettings(
            screenTime: .contactsAndGroups, downtime: .specificContacts,
            downtimeSchedule: .init(text: "21:00-07:00"))
        #expect(
            PageWords.limits(limits, child: "emma") == [
                "During Screen Time, emma can talk to contacts and approved people, and groups with at least one "
                    + "contact in them.",
                "During downtime (from 21:00 to 07:00), emma can talk to only the contacts allowed during downtime.",
                "emma cannot change their own contacts.",
            ])
        let html = PageView.card(Fixtures.asked(Fixtures.question("sam")), now: Self.now)
        #expect(html.contains("title=\"\(PageWords.absolute(Fixtures.asked(Fixtures.question("sam")).askedAt))\""))
        #expect(html.contains(">asked 5 minutes ago</time>"))
    }

    @Test func onlyImagesTheBrowserShowsAsImagesAreAvatars() {
        #expect(PageImage.contentType([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == "image/png")
        #expect(PageImage.contentType([0xFF, 0xD8, 0xFF, 0xE0]) == "image/jpeg")
        #expect(PageImage.contentType(Array("GIF89a....".utf8)) == "image/gif")
        #expect(PageImage.contentType(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == "image/webp")
        #expect(PageImage.contentType(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>".utf8)) == nil)
        #expect(PageImage.contentType(Array("<html><script>alert(1)</script>".utf8)) == nil)
        #expect(PageImage.contentType([0x89, 0x50]) == nil)
        var question = Fixtures.question("sam")
        let svg = PersonInformation(
            handle: CommunicationHandle(value: "sam", kind: .custom), avatarImage: Array("<svg/>".utf8))
        question.topic = .communication(CommunicationTopic(personInformation: [svg]))
        let html = Self.card(question)
        #expect(!html.contains("<img"), "no avatar from bytes that are not an image")
        #expect(html.contains("<span class=\"avatar initial\" aria-hidden=\"true\">S</span>"))
    }
}
