import Foundation
import HearthClient
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import ParentKit
import PermissionKit
import Testing

/// One history for every guardian, kept by the broker, and co-parents told of each other's settings changes, through
/// the real daemons (separate processes over CURVE): a decision and settings changes made from two parents' devices
/// read the same from both, a page at a time; a device restored from nothing reads it whole; the other guardian is
/// told who changed what (ParentKit and `hearthctl parent watch --json`); bad requests get typed errors.
@Suite("History across real daemons", .serialized, .tags(.fleet))
struct HistoryAcrossDaemonsTests {
    /// Alice, bob and emma (`ParentNotificationTests.family`), and another family: zed and his child yuri.
    static let family = FleetSpec(
        families: ParentNotificationTests.family.families + [
            .init(
                "jones", members: [.organizer("zed", devices: ["zed-phone"]), .child("yuri", devices: ["yuri-tablet"])])
        ])

    static let notAParent = "only the organizer or a guardian of emma's family may do this; emma is child"

    @Test func everyGuardianReadsTheSameHistoryAndIsToldOfTheOthersChanges() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let alice = try await fleet.parent(on: "alice-phone")
            let bob = try await fleet.parent(on: "bob-phone")
            let aliceTold = NotificationCollector(
                ParentNotifications(socketPath: fleet.socket(of: "alice-phone")).updates(after: 0))
            let bobTold = NotificationCollector(
                ParentNotifications(socketPath: fleet.socket(of: "bob-phone")).updates(after: 0))
            let watch = try WatchProcess([
                "parent", "watch", "--json", "--after", "0", "--count", "3", "--socket", fleet.socket(of: "bob-phone"),
            ])

            // A decision from bob's phone, with his words.
            let question = PermissionQuestion(handle: CommunicationHandle(value: "sam", kind: .custom))
            try await app.ask(question)
            _ = try await bob.waitForQuestion(question.id)
            try await bob.approve(question.id, message: "have fun")

            // Alice changes emma's limits; bob is told who changed what, at once.
            var limits = try await alice.limits(of: "emma").settings
            limits.screenTime = limits.screenTime == .everyone ? .contactsOnly : .everyone
            try await alice.setLimits(limits, of: "emma")
            try await fleet.eventually("bob is told alice changed emma's limits") {
                bobTold.items.contains { $0.kind == .settingsChanged && $0.answeredBy == "alice" }
            }
            let told = try #require(bobTold.items.first { $0.kind == .settingsChanged })
            #expect(told.childMemberID == "emma" && told.text.contains("alice changed emma's limits: Screen Time"))
            // Bob revokes the approval; alice is told, and only of bob's change, not of her own.
            try await bob.revoke([CommunicationHandle(value: "sam", kind: .custom)], of: "emma")
            try await fleet.eventually("alice is told bob revoked an approval") {
                aliceTold.items.contains { $0.kind == .settingsChanged && $0.answeredBy == "bob" }
            }
            #expect(aliceTold.items.filter { $0.kind == .settingsChanged }.map(\.answeredBy) == ["bob"])
            let lines = try await watch.finish(within: .seconds(15))
            let kinds = lines.compactMap { ParentNotificationTests.object($0)?["kind"] as? String }
            #expect(kinds == ["questionPending", "questionAnswered", "settingsChanged"], "\(lines)")
            #expect(ParentNotificationTests.object(lines[2])?["answeredBy"] as? String == "alice")

            // The same history from both phones, a page of one entry at a time.
            let fromBob = try await bob.history(of: "emma", pageSize: 1)
            #expect(fromBob.map(\.kind) == [.answered, .limitsChanged, .approvalRevoked], "\(fromBob.map(\.summary))")
            #expect(try await alice.history(of: "emma") == fromBob)
            #expect(fromBob[0].actor == "bob" && fromBob[0].deviceID == "bob-phone" && fromBob[0].message == "have fun")
            #expect(fromBob[1].actor == "alice" && fromBob[1].deviceID == "alice-phone")
            #expect(fromBob[2].handles == [CommunicationHandle(value: "sam", kind: .custom)])

            // Bob's phone restored from nothing: a new store, the same key. The broker's record is whole.
            let daemon = try fleet.daemon("bob-phone")
            await daemon.stop()
            let state = fleet.directory + "/devices/bob-phone"
            for file in try FileManager.default.contentsOfDirectory(atPath: state) where file.hasPrefix("device.sqlite")
            {
                try FileManager.default.removeItem(atPath: state + "/" + file)
            }
            try await daemon.start()
            try await fleet.waitUntilLinked("bob-phone")
            let restored = try await fleet.parent(on: "bob-phone")
            #expect(try await restored.history(of: "emma") == fromBob)

            await restored.close()
            await alice.close()
            await bob.close()
            await app.close()
            aliceTold.cancel()
            bobTold.cancel()
        }
    }

    @Test func badRequestsGetTypedErrorsThroughTheDaemons() async throws {
        try await Fleet.with(Self.family) { fleet in
            let alice = try await fleet.parent(on: "alice-phone")
            let zed = try await fleet.parent(on: "zed-phone")
            try await alice.setLimits(CommunicationSettings(enabled: false), of: "emma")

            func refusal(_ console: ParentConsole, _ query: HistoryQuery) async -> ErrorReply? {
                do {
                    _ = try await console.history(query)
                    return nil
                } catch {
                    return error as? ErrorReply
                }
            }
            // Another family's parent: the same reply for emma as for a child nobody has.
            let stranger = await refusal(zed, HistoryQuery(childID: "emma"))
            let ghost = await refusal(zed, HistoryQuery(childID: "ghost"))
            #expect(stranger?.code == .notFound && ghost?.code == .notFound, "\(String(describing: stranger))")
            #expect(stranger?.message.replacingOccurrences(of: "emma", with: "ghost") == ghost?.message)
            #expect(await refusal(alice, HistoryQuery(childID: "yuri"))?.code == .notFound)
            #expect(await refusal(alice, HistoryQuery(childID: "emma", cursor: 424_242))?.code == .invalidCursor)
            // The child: its own daemon does not pass the command on, and the broker refuses it from the child's key.
            let child = try LocalClient(endpoint: LocalEndpoints.ipc(fleet.socket(of: "emma-tablet")), peer: "child")
            try await child.start()
            do {
                let reply = try await child.request(.history(HistoryQuery(childID: "emma")))
                Issue.record("child-device passed the history on: \(reply)")
            } catch let error as ErrorReply {
                #expect(error.code == .unknownMessageType, "\(error)")
            }
            await child.close()
            let tablet = try await RawPeer.device("emma-tablet", of: fleet)
            let direct = try await tablet.request(.history(HistoryQuery(childID: "emma")), requestID: 1)
            #expect(direct == .error(ErrorReply(.notAuthorized, Self.notAParent)), "\(direct)")
            await tablet.close()
            await alice.close()
            await zed.close()
        }
    }
}
