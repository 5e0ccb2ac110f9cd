import Foundation
import HearthCore
import Synchronization

@testable import PermissionKit

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(10), _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// Iterates a sequence in a task of its own and keeps what it yields, so a test can look while it runs.
final class Collector<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var ended = false
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element, S.Failure == Never {
        let task = Task { [self] in
            for await item in sequence { state.withLock { $0.items.append(item) } }
            state.withLock { $0.ended = true }
        }
        state.withLock { $0.task = task }
    }

    var values: [Element] { state.withLock { $0.items } }
    /// True once the sequence ended (returned nil).
    var hasEnded: Bool { state.withLock { $0.ended } }

    func cancel() { state.withLock { $0.task }?.cancel() }
}

/// A fixed question id, so tests can name responses.
func uuid(_ n: UInt8) -> UUID {
    UUID(uuid: (0x6A, 0x1E, 0x5A, 0x00, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n))
}

/// An asked question about `handle` and its resolution, as the daemon's inbox holds them.
func answered(
    _ id: UUID, handle: String, choice: PermissionChoice = .approve, reason: Resolution.Reason = .parentAnswered
) -> (AskedQuestion, Resolution) {
    let question = Question(
        id: id,
        topic: .communication(
            CommunicationTopic(
                personInformation: [PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))],
                actions: [.message]))
    )
    let asked = AskedQuestion(
        question: question, childMemberID: "kid", appBundleID: "com.example.chat", askingDeviceID: "kid-tablet",
        askedAt: Date(timeIntervalSince1970: 1_750_000_000)
    )
    let resolution = Resolution(
        questionID: id, choice: choice, reason: reason, answeredBy: reason == .parentAnswered ? "mum" : nil,
        resolvedAt: Date(timeIntervalSince1970: 1_750_000_100)
    )
    return (asked, resolution)
}

/// Runs `body` with a started fake daemon and a client of it, and always tears both down.
func withDaemon(
    timeout: Duration = .seconds(15),
    keepAliveInterval: Duration = .seconds(10),
    _ body: (FakeChildDevice, CommunicationLimits) async throws -> Void
) async throws {
    let daemon = try FakeChildDevice()
    try await daemon.start()
    let limits = CommunicationLimits(
        socketPath: daemon.path, bundleID: "com.example.chat", timeout: timeout, keepAliveInterval: keepAliveInterval
    )
    do {
        try await body(daemon, limits)
    } catch {
        await limits.close()
        await daemon.stop()
        throw error
    }
    await limits.close()
    await daemon.stop()
}
