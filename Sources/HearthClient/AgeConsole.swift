public import Foundation
public import HearthCore
import HearthProtocol
public import HearthTransport

/// A person at any device (a child's or an adult's), for Declared Age Range: the prompts waiting there, answering
/// them, sharing settings and clearing an app's cache, through the device daemon's socket.
public final class AgeConsole: Sendable {
    private let client: LocalClient

    public convenience init(socketPath: String) async throws {
        let client = try LocalClient(endpoint: LocalEndpoints.ipc(socketPath), peer: "device daemon")
        try await client.start()
        self.init(client: client)
    }

    /// A console over a started client of the device daemon's socket.
    public init(client: LocalClient) {
        self.client = client
    }

    private func request(_ message: AgeRangeMessage) async throws -> AgeRangeMessage {
        let reply = try await client.request(.ageRange(message))
        guard case .ageRange(let answer) = reply else {
            throw TransportError.unexpectedReply(peer: "device daemon", type: reply.typeCode)
        }
        return answer
    }

    /// The Ask First prompts waiting on this device, oldest first.
    public func prompts() async throws -> [AgePrompt] {
        guard case .promptList(let list) = try await request(.listPrompts) else { return [] }
        return list
    }

    /// Shares or declines; a refusal is thrown as `ErrorReply` (`expired`, `alreadyAnswered`, `notFound`).
    @discardableResult
    public func answer(_ id: UUID, share: Bool) async throws -> AgeRangeAnswer {
        guard case .promptAnswered(_, let answer) = try await request(.answerPrompt(id: id, share: share)) else {
            throw TransportError.unexpectedReply(peer: "device daemon", type: 0)
        }
        return answer
    }

    /// Sets `member`'s sharing setting; `notAuthorized` unless a parent sets a child's, or an adult their own.
    public func setSharing(_ setting: AgeSharing, of member: MemberID) async throws {
        _ = try await request(.setSharing(member: member, setting))
    }

    /// Forgets what `app` was told; true if there was something to forget.
    @discardableResult
    public func clearCache(app: BundleID) async throws -> Bool {
        guard case .cacheCleared(_, let existed) = try await request(.clearCache(app: app)) else { return false }
        return existed
    }

    /// Waits until a prompt for `app` is waiting here.
    public func waitForPrompt(app: BundleID, timeout: Duration = .seconds(10)) async throws -> AgePrompt {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = try await prompts().first(where: { $0.app == app }) { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ClientError("no age range prompt for \(app) reached this device within \(timeout)")
    }

    public func close() async { await client.close() }
}
