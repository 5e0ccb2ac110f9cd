import Foundation
import HearthCore
import HearthProtocol

/// The slow part of passcode commands, done before the write transaction (on a store reader, not the writer queue
/// and not the cooperative pool) so that hashing never holds up other families' commands.
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
        _ requests: [BrokerRequest], store: any BrokerStorage, policy: BrokerPolicy, directory: Directory, now: Date
    ) async -> [Int: Prepared] {
        let work = requests.indices.compactMap { index -> (Int, BrokerCommand, Directory.Member)? in
            switch requests[index].command {
            case .setPasscode, .approveInPerson:
                directory.members[requests[index].memberID].map { (index, requests[index].command, $0) }
            default:
                nil
            }
        }
        guard !work.isEmpty else { return [:] }
        return
            (try? await store.reading { store in
                var prepared: [Int: Prepared] = [:]
                for (index, command, caller) in work {
                    switch command {
                    case .setPasscode(let childID, let passcode) where !passcode.isEmpty:
                        guard caller.role.isParent, let family = caller.familyID,
                            let child = directory.members[childID],
                            child.familyID == family, directory.isChild(child, on: now),
                            PasscodeHash.lengthRange.contains(passcode.count)
                        else { continue }
                        if let hash = try? PasscodeHash.make(passcode, cost: policy.passcodeCost) {
                            prepared[index] = .newHash(hash)
                        }
                    case .approveInPerson(let questionID, let passcode):
                        guard let question = try store.question(questionID), question.resolution == nil,
                            question.asked.childMemberID == caller.id,
                            let row = try store.passcode(of: caller.id), row.lockedUntil <= now
                        else { continue }
                        prepared[index] = .checked(
                            storedHash: row.hash, matches: PasscodeHash(encoded: row.hash).verify(passcode))
                    default:
                        continue
                    }
                }
                return prepared
            }) ?? [:]
    }
}
