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

    /// Prepared work by command index; commands of other types are not touched. A scrypt run costs tens of milliseconds,
    /// so it is done only for a command the transaction would act on: a parent of the child's family setting a passcode
    /// of a valid length, the child who asked typing one for a pending question while not locked out. Any other caller
    /// gets its refusal without costing the broker a hash.
    static func prepare(
        _ commands: [BrokerEngine.Command], store: BrokerStore, policy: BrokerPolicy, directory: Directory, now: Date
    ) async -> [Int: Prepared] {
        let indexes = commands.indices.filter { index in
            let frame = commands[index].frame
            return frame.count > 1 && (frame[1] == 0x0B || frame[1] == 0x0C)
        }
        guard !indexes.isEmpty else { return [:] }
        let work = indexes.map { ($0, commands[$0].frame, commands[$0].deviceID.flatMap { directory.member(ofDevice: $0) }) }
        return (try? await store.read { db in
            var prepared: [Int: Prepared] = [:]
            for (index, frame, caller) in work {
                guard let caller, let envelope = try? MessageCodec.decode(frame) else { continue }
                switch envelope.message {
                case .setPasscode(let childID, let passcode) where !passcode.isEmpty:
                    guard caller.role.isParent, let family = caller.familyID, let child = directory.members[childID],
                          child.familyID == family, directory.isChild(child, on: now), PasscodeHash.lengthRange.contains(passcode.count)
                    else { continue }
                    if let hash = try? PasscodeHash.make(passcode, cost: policy.passcodeCost) { prepared[index] = .newHash(hash) }
                case .approveInPerson(let questionID, let passcode):
                    guard let question = try BrokerStore.question(questionID, in: db), question.resolution == nil,
                          question.asked.childMemberID == caller.id,
                          let row = try BrokerStore.passcode(of: caller.id, in: db), row.lockedUntil <= now
                    else { continue }
                    prepared[index] = .checked(storedHash: row.hash, matches: PasscodeHash(encoded: row.hash).verify(passcode))
                default:
                    continue
                }
            }
            return prepared
        }) ?? [:]
    }
}
