import Foundation
import HearthCore
import HearthProtocol

/// Frames in, frames out, around the engine. Each command is decoded and its sender checked before the writer
/// queue, on the caller's task: a malformed frame, an unknown key or a message the broker does not run gets its
/// error reply without costing a savepoint or a place in the transaction. The rest run as one batch; every reply is
/// encoded here, after the commit, off the writer.
public struct CommandIntake: Sendable {
    /// One command as read from the ingress socket, as the gate admitted it.
    public typealias Inbound = AdmittedCommand

    /// The reply to one inbound command, in the order they came.
    public struct Reply: Sendable {
        public var routingID: [UInt8]
        public var frame: [UInt8]
        public var outcome: CommandOutcome
    }

    public let engine: BrokerEngine
    /// Where a `hello` below version 2 is recorded, so that its member's events are published one per frame.
    let singleEventMembers: SingleEventMembers
    /// What each device negotiated, so that its replies hold only what it reads;
    /// shared with the publishing of events, which reads them too.
    let deviceVersions: DeviceVersions

    public init(engine: BrokerEngine) {
        self.init(engine: engine, singleEventMembers: SingleEventMembers(), deviceVersions: DeviceVersions())
    }

    package init(engine: BrokerEngine, singleEventMembers: SingleEventMembers, deviceVersions: DeviceVersions) {
        self.engine = engine
        self.singleEventMembers = singleEventMembers
        self.deviceVersions = deviceVersions
    }

    /// Runs a batch; returns one reply per command, in order, and what the transaction committed. Replies exist only
    /// once committed; events have been delivered by the engine.
    public func process(_ batch: [Inbound]) async -> (replies: [Reply], committed: BrokerEngine.Output) {
        await run(prepare(batch))
    }

    /// Decodes and checks `batch` against the current directory: everything before the transaction.
    public func prepare(_ batch: [Inbound]) -> Prepared {
        let (directory, generation) = engine.directory.versioned
        var prepared = Prepared(
            inbound: batch, outcomes: Array(repeating: nil, count: batch.count),
            requestIDs: Array(repeating: 0, count: batch.count), generation: generation)
        prepared.requests.reserveCapacity(batch.count)
        for (index, inbound) in batch.enumerated() {
            prepared.requestIDs[index] = MessageCodec.peekRequestID(inbound.frame)
            switch Self.check(inbound, directory: directory) {
            case .success(let request):
                if case .hello(let version) = request.command {
                    deviceVersions.record(version, for: request.deviceID)
                    if version < Wire.eventBatchVersion { singleEventMembers.insert(request.memberID) }
                }
                if let ownership = engine.ownership, let refusal = Self.refusal(request, ownership, directory) {
                    prepared.outcomes[index] = refusal
                    continue
                }
                prepared.requests.append(request)
                prepared.positions.append(index)
            case .failure(let error):
                prepared.outcomes[index] = .failure(error)
            }
        }
        return prepared
    }

    /// Commits a prepared batch and encodes its replies. A batch checked against an older directory (a transaction
    /// since revoked a device, moved a member or changed a family) is checked again first.
    public func run(_ prepared: Prepared) async -> (replies: [Reply], committed: BrokerEngine.Output) {
        var prepared = prepared
        if prepared.generation != engine.directory.generation {
            let hashed = prepared.hashed
            prepared = prepare(prepared.inbound)
            prepared.hashed = hashed
        }
        var committed = BrokerEngine.Output()
        if !prepared.requests.isEmpty {
            let processed = await engine.process(prepared.requests, hashed: prepared.hashedRequests)
            committed = processed.output
            for (position, outcome) in zip(prepared.positions, processed.outcomes) {
                prepared.outcomes[position] = outcome
            }
        }
        let replies = prepared.inbound.indices.map { index in
            let outcome = prepared.outcomes[index]!
            let version = deviceVersions.version(of: prepared.inbound[index].deviceID)
            return Reply(
                routingID: prepared.inbound[index].routingID,
                frame: BrokerFrames.reply(outcome, requestID: prepared.requestIDs[index], peerVersion: version),
                outcome: outcome)
        }
        return (replies, committed)
    }

    /// The checked request in `inbound`, or the error that answers it: the frame decodes, its key is enrolled, and
    /// the broker runs its message (and, for `hello`, speaks its version), in that order.
    static func check(_ inbound: Inbound, directory: Directory) -> Result<BrokerRequest, ErrorReply> {
        let envelope: Envelope
        do {
            envelope = try MessageCodec.decode(inbound.frame)
        } catch {
            return .failure(ErrorReply(error.code, error.description))
        }
        guard let deviceID = inbound.deviceID, let member = directory.member(ofDevice: deviceID) else {
            return .failure(ErrorReply(.notAuthorized, "this connection's key is not enrolled"))
        }
        do {
            return .success(
                BrokerRequest(
                    deviceID: deviceID, memberID: member.id, command: try BrokerFrames.command(envelope.message)))
        } catch {
            return .failure(error)
        }
    }
}
