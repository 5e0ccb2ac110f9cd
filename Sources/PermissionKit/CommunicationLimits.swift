public import Foundation
public import HearthCore
import HearthProtocol
import HearthTransport

/// An app's entry point to PermissionKit: which people the child may see, asking the parents about new ones, and
/// their answers. Talks to the child-device daemon over its local socket; every call has a deadline.
public final class CommunicationLimits: Sendable {
    /// The instance for this process: the daemon at `LocalEndpoints.childDeviceSocket`, the app named by
    /// `$HEARTH_APP_BUNDLE_ID`, else by the process name.
    public static let current = CommunicationLimits(
        socketPath: LocalEndpoints.childDeviceSocket, bundleID: CommunicationLimits.environmentBundleID()
    )

    /// The child-device daemon's socket path.
    public let socketPath: String
    /// The bundle id this app asks under.
    public let bundleID: String
    /// The deadline of each request to the daemon.
    public let timeout: Duration

    let connection: ChildDeviceConnection
    let hub: ResponseHub
    let acknowledgements = AcknowledgementTracker()

    /// An instance talking to the daemon at `socketPath` as the app `bundleID`. Nothing connects until first use.
    public convenience init(socketPath: String, bundleID: String, timeout: Duration = .seconds(5)) {
        self.init(
            socketPath: socketPath, bundleID: bundleID, timeout: timeout,
            keepAliveInterval: ChildDeviceConnection.defaultKeepAliveInterval
        )
    }

    init(socketPath: String, bundleID: String, timeout: Duration, keepAliveInterval: Duration) {
        self.socketPath = socketPath
        self.bundleID = bundleID
        self.timeout = timeout
        let hub = ResponseHub()
        let connection = ChildDeviceConnection(
            socketPath: socketPath, bundleID: bundleID, timeout: timeout, keepAliveInterval: keepAliveInterval, hub: hub
        )
        let acknowledgements = self.acknowledgements
        hub.setAcknowledger { [weak connection] inboxID in
            guard let connection else { return }
            acknowledgements.start(inboxID) { await connection.acknowledge(inboxID) }
        }
        self.hub = hub
        self.connection = connection
    }

    /// The subset of `handles` the system knows: the child's contacts and the people parents approved.
    ///
    /// Show a conversation only if every participant is known. On any failure (no daemon, timeout) this returns
    /// the empty set, which hides everything: failing closed is the safe answer for a child.
    public func knownHandles(in handles: Set<CommunicationHandle>) async -> Set<CommunicationHandle> {
        var known = Set<CommunicationHandle>()
        let all = Array(handles)
        // The wire caps one request's handle list; larger sets go in several requests.
        for start in stride(from: 0, to: all.count, by: Self.maxHandlesPerRequest) {
            let batch = Array(all[start..<min(start + Self.maxHandlesPerRequest, all.count)])
            guard let reply = try? await connection.request(.knownHandles(batch)),
                case .knownHandlesResult(let result) = reply
            else { return [] }
            known.formUnion(result)
        }
        // A daemon can only vouch for handles that were asked about.
        return known.intersection(handles)
    }

    /// Whether the system knows `handle`; false on any failure.
    public func isKnownHandle(_ handle: CommunicationHandle) async -> Bool {
        await knownHandles(in: [handle]).contains(handle)
    }

    /// Sends `question` to the child's parents through the child-device daemon.
    ///
    /// Returns once the daemon has taken the question; the answer arrives later through `responses(for:)`, also when
    /// the question is answered at once with the default response. Hearth's headless spelling: it throws
    /// `AskFailure` naming the broken rule or the unreachable daemon (Apple's `ask(_:in:)` throws `AskError`), or
    /// `CancellationError`.
    public func ask<Topic: QuestionTopic>(_ question: PermissionQuestion<Topic>) async throws {
        _ = try await send(question)
    }

    /// `ask(_:)`, returning the question's resolution when it was resolved at once, without asking any parent (a
    /// default response, or already known): the app gets it through `responses(for:)` all the same.
    func send<Topic: QuestionTopic>(_ question: PermissionQuestion<Topic>) async throws -> Resolution? {
        try question.validate()
        let message = Message.ask(appBundleID: bundleID, question: Question(question))
        let reply: Message
        do {
            reply = try await connection.request(message)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw AskFailure(error, socketPath: socketPath)
        }
        guard case .askAccepted(let asked, let resolution) = reply else {
            throw AskFailure.unknown(
                reason: TransportError.unexpectedReply(peer: connection.peerName, type: reply.typeCode).description)
        }
        if let resolution { hub.receive(asked, resolution, inboxID: nil) }
        return resolution
    }

    /// Takes back a question this app asked that nobody has answered yet: the parents are told and can no longer
    /// answer it, and the app receives its response through `updates` with its default choice and reason
    /// `.withdrawn`. Withdrawing it again is harmless. Throws `AskFailure`: `invalidQuestion` when it was already
    /// answered or expired (the reason says which), `notAvailable` when the daemon or its broker cannot be reached.
    public func withdraw<Topic: QuestionTopic>(_ question: PermissionQuestion<Topic>) async throws {
        try await withdraw(questionWithID: question.id)
    }

    /// `withdraw(_:)` by the question's id.
    public func withdraw(questionWithID id: UUID) async throws {
        let reply: Message
        do {
            reply = try await connection.request(.withdraw(questionID: id))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw AskFailure(error, socketPath: socketPath)
        }
        guard case .answerAccepted = reply else {
            throw AskFailure.unknown(
                reason: TransportError.unexpectedReply(peer: connection.peerName, type: reply.typeCode).description)
        }
    }

    /// Apple's `ask(_:in:)` of iOS 26.0, deprecated by Apple for `AskCenter.shared.ask(_:in:)`, which it is: it sends
    /// the question as `ask(_:)` does and throws Apple's `AskError`. Hearth has no UI to present, so `context` (a view
    /// controller or window on Apple platforms) is ignored.
    @available(*, deprecated, message: "Use AskCenter.shared.ask(_:in:)")
    nonisolated(nonsending)
        public func ask<Topic: QuestionTopic>(_ question: PermissionQuestion<Topic>, in context: Any?) async throws
    {
        try await AskCenter(self).ask(question, in: context)
    }

    /// Every response to this app's communication questions, delivered even if the app was not running when the
    /// parent answered.
    ///
    /// Each iteration is a subscription of its own: concurrent iterations each get every response that arrives while
    /// they run. A response that arrives while no iteration runs is kept for the next one to start. Each question's
    /// response is yielded once per process, even if the daemon pushes it again. Iterations end after `close()`.
    ///
    /// A response counts as handled when the loop asks for the next one (the `for await` body finished), or when
    /// `acknowledge(_:)` is called; only then does the daemon drop it. A response the app never finished handling,
    /// because it crashed or left the loop early, is delivered again: at least once, exactly once without a crash.
    ///
    /// Deprecated by Apple (iOS 26.2) for `AskCenter.shared.responses(for: CommunicationTopic.self)`, the same stream.
    @available(*, deprecated, message: "Use AskCenter.shared.responses(for: CommunicationTopic.self)")
    public var updates: some AsyncSequence<PermissionResponse<CommunicationTopic>, Never> & Sendable {
        responses(for: CommunicationTopic.self)
    }

    /// Like `updates`, for questions about `topic`.
    public func responses<Topic: QuestionTopic>(
        for topic: Topic.Type
    ) -> some AsyncSequence<PermissionResponse<Topic>, Never> & Sendable {
        PermissionResponses<Topic>(hub: hub, connection: connection)
    }

    /// Tells the daemon the app has handled `response`, without waiting for the loop's next turn: call it before
    /// leaving a `for await` loop early (`break`, `return`), or the response is delivered again on the next start.
    public func acknowledge<Topic: QuestionTopic>(_ response: PermissionResponse<Topic>) {
        hub.acknowledge(response.question.id)
    }

    /// Releases the connection and ends live iterations of `updates`; a later call connects again.
    public func close() async {
        await acknowledgements.drain()
        await connection.close()
        hub.finishAll()
    }

    /// The most handles one `knownHandles` request may carry (the decoder's limit).
    static let maxHandlesPerRequest = 1000

    /// `$HEARTH_APP_BUNDLE_ID`, else the process name with characters a bundle id may not hold replaced by `-`.
    static func environmentBundleID(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        processName: String = ProcessInfo.processInfo.processName
    ) -> String {
        AppIdentity.bundleID(environment: environment, processName: processName)
    }
}
