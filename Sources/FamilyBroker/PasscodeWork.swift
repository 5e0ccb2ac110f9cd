import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// The slow part of passcode commands, done before the write transaction (on a GRDB reader, not the writer queue and not
/// the cooperative pool) so that hashing never holds up other families' commands.
enum PasscodeWork {
    enum Prepared: Sendable {
        /// `setPasscode`: the new hash.
        case newHash(PasscodeHash)
        /// `approveInPerson`: whether the passcode matched `storedHash`, the hash in force when it was checked.
        case checked(storedHash: String?, matches: Bool)
    }

    /// Prepared work by command index; commands of other types are not touched.
    static func prepare(_ commands: [BrokerEngine.Command], store: BrokerStore, policy: BrokerPolicy) async -> [Int: Prepared] {
        let indexes = commands.indices.filter { index in
            let frame = commands[index].frame
            return frame.count > 1 && (frame[1] == 0x0B || frame[1] == 0x0C)
        }
        guard !indexes.isEmpty else { return [:] }
        let frames = indexes.map { ($0, commands[$0].frame) }
        return (try? await store.read { db in
            var prepared: [Int: Prepared] = [:]
            for (index, frame) in frames {
                guard let envelope = try? MessageCodec.decode(frame) else { continue }
                switch envelope.message {
                case .setPasscode(_, let passcode) where !passcode.isEmpty:
                    if let hash = try? PasscodeHash.make(passcode, cost: policy.passcodeCost) { prepared[index] = .newHash(hash) }
                case .approveInPerson(let questionID, let passcode):
                    guard let question = try BrokerStore.question(questionID, in: db) else { continue }
                    let stored = try BrokerStore.passcode(of: question.asked.childMemberID, in: db)?.hash
                    prepared[index] = .checked(storedHash: stored, matches: stored.map { PasscodeHash(encoded: $0).verify(passcode) } ?? false)
                default:
                    continue
                }
            }
            return prepared
        }) ?? [:]
    }
}
