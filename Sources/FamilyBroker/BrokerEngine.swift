import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Logging

/// Applies devices' commands, operators' admin commands and the passing of time: authorization, Family Sharing and
/// Communication Limits policy, storage and events.
///
/// Every change runs on GRDB's single writer queue: a batch of commands in one SQLite transaction (group commit), each
/// command in a savepoint so that one failure changes nothing and does not undo its neighbours. Sequence numbers are
/// taken and advanced on that queue, and `deliver` is called there right after the commit, so replies and events leave
/// only once committed and in commit order, whichever task started the work.
public final class BrokerEngine: Sendable {
    /// One command as read from the ingress socket.
    public struct Command: Sendable {
        public var routingID: [UInt8]
        /// The CURVE-authenticated device (ZAP `User-Id`); nil if the connection carried none.
        public var deviceID: DeviceID?
        public var frame: [UInt8]

        public init(routingID: [UInt8], deviceID: DeviceID?, frame: [UInt8]) {
            self.routingID = routingID
            self.deviceID = deviceID
            self.frame = frame
        }
    }

    /// What one committed transaction produced.
    public struct Output: Sendable {
        public var replies: [(routingID: [UInt8], frame: [UInt8])] = []
        public var events: [Event] = []
        /// The frame publishing each of `events`, in the same order.
        public var eventFrames: [[UInt8]] = []
        /// Devices revoked or removed by this transaction: their open connections must be closed.
        public var disconnectedDevices: [DeviceID] = []
    }

    public let store: BrokerStore
    public let directory: DirectoryBox
    public let sequences: SequenceBook
    public let policy: BrokerPolicy
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let deliver: @Sendable (Output) -> Void

    public init(
        store: BrokerStore, directory: DirectoryBox, sequences: SequenceBook, logger: Logger, policy: BrokerPolicy = BrokerPolicy(),
        clock: @escaping @Sendable () -> Date = Date.init, deliver: @escaping @Sendable (Output) -> Void = { _ in }
    ) {
        self.store = store
        self.directory = directory
        self.sequences = sequences
        self.logger = logger
        self.policy = policy
        self.clock = clock
        self.deliver = deliver
    }

    /// Runs a batch of device commands; returns (and delivers) the replies and events, nothing that was not committed.
    public func process(_ commands: [Command]) async -> Output {
        let secrets = await PasscodeWork.prepare(commands, store: store, policy: policy, directory: directory.current, now: clock())
        do {
            return try await transact { tx, db in
                tx.secrets = secrets
                for command in commands {
                    let requestID = MessageCodec.peekRequestID(command.frame)
                    let reply = tx.inSavepoint(db, device: command.deviceID) { tx in try tx.handle(command, in: db) }
                    tx.replies.append((command.routingID, MessageCodec.encodeReply(reply, requestID: requestID)))
                }
            }
        } catch {
            // The commit itself failed: nothing is stored, so every command gets an error and no event leaves.
            logger.error("batch commit failed", metadata: ["error": "\(error)", "commands": "\(commands.count)"])
            var output = Output()
            for command in commands {
                let reply = Message.error(ErrorReply(.internalError, "the broker could not commit; retry"))
                output.replies.append((command.routingID, MessageCodec.encode(reply, requestID: MessageCodec.peekRequestID(command.frame))))
            }
            deliver(output)
            return output
        }
    }

    /// Resolves every pending question whose expiration date has passed with its default choice (reason `expired`).
    @discardableResult
    public func expireQuestions() async throws -> Output {
        try await transact { tx, db in try tx.expireQuestions(in: db) }
    }

    /// Applies the family file's families whose entry changed since last applied (at start-up and on `reload`).
    /// Throws `ConfigurationError` and changes nothing when the result would be invalid.
    @discardableResult
    public func applyConfiguration(_ configured: Directory) async throws -> Output {
        try await transact { tx, db in _ = try tx.applyConfiguration(configured, in: db) }
    }

    /// Runs one admin command; `configuration` reads the family file for `reload`.
    public func admin(_ request: AdminRequest, configuration: @escaping @Sendable () throws -> Directory) async -> Result<AdminResult, ErrorReply> {
        do {
            var (result, output) = try await transacting { tx, db in
                try tx.admin(request, configuration: configuration, in: db)
            }
            result.disconnectedDevices = output.disconnectedDevices
            return .success(result)
        } catch let error as ErrorReply {
            return .failure(error)
        } catch let error as ConfigurationError {
            return .failure(ErrorReply(.invalidRequest, error.description))
        } catch {
            logger.error("admin command failed", metadata: ["command": "\(request.command)", "error": "\(error)"])
            return .failure(ErrorReply(.internalError, "the broker could not apply this command; nothing was changed"))
        }
    }

    /// One write transaction on GRDB's writer queue: heads and directory read there, advanced and delivered there.
    func transact(_ work: @escaping @Sendable (inout Transaction, Database) throws -> Void) async throws -> Output {
        try await transacting(work).1
    }

    private func transacting<T: Sendable>(_ work: @escaping @Sendable (inout Transaction, Database) throws -> T) async throws -> (T, Output) {
        let policy = self.policy, logger = self.logger, clock = self.clock
        return try await store.pool.writeWithoutTransaction { db in
            var tx = Transaction(directory: self.directory.current, heads: self.sequences.snapshot(), now: clock(), policy: policy, logger: logger)
            var result: T?
            try db.inTransaction(.immediate) {
                result = try work(&tx, db)
                return .commit
            }
            self.sequences.update(tx.changedHeads)
            if tx.directoryChanged { self.directory.replace(tx.directory) }
            let output = Output(replies: tx.replies, events: tx.events, eventFrames: tx.eventFrames, disconnectedDevices: tx.disconnectedDevices)
            self.deliver(output)
            return (result!, output)
        }
    }
}
