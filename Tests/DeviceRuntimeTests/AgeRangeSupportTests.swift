import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import DeviceRuntime

/// Declared Age Range on a device against a fake context and a real SQLite file: prompts kept for a person, answers
/// pushed to watching apps, requests forwarded or refused with the reason.
struct AgeRangeSupportTests {
    /// A behaviour with no tables and nothing to say: what AgeRangeSupport wraps.
    final class Base: DeviceBehavior {
        let name = "child-device"
        func apply(_ event: Event, in db: Database) throws {}
        func applied(_ events: [Event], context: any DeviceContext) async {}
        func handleLocal(_ envelope: Envelope, from routingID: [UInt8], context: any DeviceContext) async -> Message? {
            .ok
        }
        func linked(context: any DeviceContext) async {}
    }

    static let app = "com.example.landmarks"
    static let teen = DeclaredRange(lowerBound: 13, upperBound: 15, declaration: .guardianDeclared)

    let store: DeviceStore
    let support: AgeRangeSupport<Base>
    let context = FakeContext()

    init() async throws {
        store = try await temporaryStore { AgePromptStore.migrate(&$0) }
        support = AgeRangeSupport(Base(), prompts: AgePromptStore(store.pool), brokerDeadline: .milliseconds(200))
    }

    func local(_ message: AgeRangeMessage, from routingID: [UInt8] = [1]) async -> Message? {
        let envelope = Envelope(requestID: 5, message: .ageRange(message))
        return await support.handleLocal(envelope, from: routingID, context: context)
    }

    func apply(_ events: [Event]) async throws {
        let (applied, _) = try await store.apply(events, behavior: support)
        await support.applied(applied, context: context)
    }

    static func prompt(_ id: UUID = UUID(), createdAt seconds: TimeInterval) -> AgePrompt {
        AgePrompt(
            id: id, memberID: "emma", app: app, gates: [13, 16], range: teen,
            createdAt: Date(timeIntervalSince1970: seconds), expiresAt: Date(timeIntervalSince1970: seconds + 30))
    }

    @Test func otherMessagesGoToTheWrappedBehaviour() async throws {
        let envelope = Envelope(requestID: 1, message: .listPending)
        let reply = await support.handleLocal(envelope, from: [1], context: context)
        #expect(reply == .ok)
    }

    @Test func aWrongRequestIsNamedWithoutAskingTheBroker() async throws {
        context.setLinked(true, as: Fixtures.emma)
        #expect(await local(.request(app: Self.app, gates: []))?.isError(.invalidAgeRequest) == true)
        #expect(context.requests.isEmpty)
    }

    @Test func anUnlinkedDeviceSaysWhetherItsKeyWasRefused() async throws {
        #expect(await local(.request(app: Self.app, gates: [13]))?.isError(.brokerUnavailable) == true)
        context.setRefused(true)
        #expect(await local(.request(app: Self.app, gates: [13]))?.isError(.deviceNotEnrolled) == true)
        #expect(context.requests.isEmpty)
    }

    @Test func aLinkedDeviceForwardsAndASilentBrokerIsNamed() async throws {
        context.setLinked(true, as: Fixtures.emma)
        context.setBroker { _ in .ageRange(.result(app: Self.app, .sharing(Self.teen))) }
        let reply = await local(.request(app: Self.app, gates: [13, 16]))
        #expect(reply == .ageRange(.result(app: Self.app, .sharing(Self.teen))))
        #expect(context.requests == [.ageRange(.request(app: Self.app, gates: [13, 16]))])
        context.setBroker { _ in nil }
        #expect(await local(.clearCache(app: Self.app))?.isError(.brokerUnavailable) == true)
    }

    /// Regulatory features are a version-3 command: a device welcomed with an older version says so itself.
    @Test func regulatoryFeaturesAreAskedOnlyOfABrokerThatNegotiatedThem() async throws {
        var older = Fixtures.emma
        older.version = 2
        context.setLinked(true, as: older)
        context.setBroker { _ in .ageRange(.regulatoryFeatures([.declaredAgeRangeRequired])) }
        let refused = await local(.requestRegulatoryFeatures)
        #expect(refused?.isError(.unsupportedVersion) == true)
        #expect(context.requests.isEmpty)

        var current = Fixtures.emma
        current.version = Wire.ageSignalsVersion
        context.setLinked(true, as: current)
        #expect(await local(.requestRegulatoryFeatures) == .ageRange(.regulatoryFeatures([.declaredAgeRangeRequired])))
        #expect(context.requests == [.ageRange(.requestRegulatoryFeatures)])
    }

    @Test func promptsAreKeptOldestFirstUntilClosed() async throws {
        let older = Self.prompt(createdAt: 1_000)
        let newer = Self.prompt(createdAt: 2_000)
        try await apply([
            Fixtures.event(1, .ageRange(.promptOpened(newer))), Fixtures.event(2, .ageRange(.promptOpened(older))),
        ])
        #expect(await local(.listPrompts) == .ageRange(.promptList([older, newer])))
        try await apply([Fixtures.event(3, .ageRange(.promptClosed(id: older.id, app: Self.app, .sharing(Self.teen))))])
        #expect(await local(.listPrompts) == .ageRange(.promptList([newer])))
    }

    @Test func anAnswerChangeIsPushedToTheAppsWatchingItOnly() async throws {
        #expect(await local(.watch(app: Self.app), from: [1]) == .ok)
        #expect(await local(.watch(app: "com.example.other"), from: [2]) == .ok)
        try await apply([Fixtures.event(1, .ageRange(.answerChanged(app: Self.app, .sharing(Self.teen))))])
        #expect(context.sent(to: [1]) == [.ageRange(.update(app: Self.app, promptID: nil, .sharing(Self.teen)))])
        #expect(context.sent(to: [2]).isEmpty)
    }

    @Test func aPromptedRequestIsToldTheOutcomeWhenThePromptCloses() async throws {
        let prompt = Self.prompt(createdAt: 1_000)
        context.setLinked(true, as: Fixtures.emma)
        context.setBroker { _ in .ageRange(.prompted(id: prompt.id, app: Self.app, timeoutMilliseconds: 30_000)) }
        _ = await local(.request(app: Self.app, gates: [13, 16]), from: [3])
        let declined = AgeRangeAnswer.declined(.userDeclined)
        try await apply([Fixtures.event(1, .ageRange(.promptClosed(id: prompt.id, app: Self.app, declined)))])
        #expect(context.sent(to: [3]) == [.ageRange(.update(app: Self.app, promptID: prompt.id, declined))])
    }

    @Test func aPromptsWaitEndsWithTheDaemonAndTellsTheAppNothing() async throws {
        let prompt = Self.prompt(createdAt: 1_000)
        context.setLinked(true, as: Fixtures.emma)
        context.setBroker { _ in .ageRange(.prompted(id: prompt.id, app: Self.app, timeoutMilliseconds: 30_000)) }
        _ = await local(.request(app: Self.app, gates: [13, 16]), from: [3])
        // The daemon stops: the prompt did not time out, so no "declined" goes to the app.
        await context.cancelTasks()
        #expect(context.sent(to: [3]).isEmpty)
    }

    @Test func aPromptNobodyAnswersIsDeclinedToTheAppAfterItsTimeout() async throws {
        let prompt = Self.prompt(createdAt: 1_000)
        context.setLinked(true, as: Fixtures.emma)
        context.setBroker { _ in .ageRange(.prompted(id: prompt.id, app: Self.app, timeoutMilliseconds: 0)) }
        _ = await local(.request(app: Self.app, gates: [13, 16]), from: [3])
        let deadline = ContinuousClock.now + .seconds(10)
        while context.sent(to: [3]).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let timedOut = AgeRangeAnswer.declined(.promptTimedOut)
        #expect(context.sent(to: [3]) == [.ageRange(.update(app: Self.app, promptID: prompt.id, timedOut))])
    }
}
