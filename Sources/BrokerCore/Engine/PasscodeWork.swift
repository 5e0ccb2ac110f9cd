package import Foundation
import HearthCore
import HearthProtocol

/// The slow part of passcode commands: scrypt, tens of milliseconds per run in a release build and a second or more in
/// a debug one or under load. The broker runs it beside its pipeline (`PasscodeLane`), on a thread of its own, and a
/// passcode command enters the writer with its hash ready, so that no other command waits for it. Reads come from
/// a store reader, never the writer.
package enum PasscodeWork {
    package enum Prepared: Sendable {
        /// `setPasscode`: the new hash.
        case newHash(PasscodeHash)
        /// `approveInPerson`, `declineInPerson`: whether the passcode matched `storedHash`, the hash in force when it was checked.
        case checked(storedHash: String?, matches: Bool)
        /// Checked, and no hash is due: the transaction refuses the command without one.
        case notDue
    }

    /// What hashing needs from one command, read before it.
    package enum Input: Sendable {
        /// `setPasscode`: hash the new passcode at `cost`.
        case hash(passcode: String, cost: Int)
        /// `approveInPerson`, `declineInPerson`: compare `passcode` with `storedHash`.
        case verify(passcode: String, storedHash: String)
        /// Nothing: the transaction refuses the command without a hash.
        case nothingDue
    }

    /// Whether `command` may need a hash.
    package static func mayHash(_ command: BrokerCommand) -> Bool {
        switch command {
        case .setPasscode, .approveInPerson, .declineInPerson: true
        default: false
        }
    }

    /// Prepared work by command index, for the commands that needed a hash only (see `inputs`).
    package static func prepare(
        _ requests: [BrokerRequest], store: any BrokerStorage, policy: BrokerPolicy, directory: Directory, now: Date
    ) async -> [Int: Prepared] {
        hash(await inputs(requests, store: store, policy: policy, directory: directory, now: now)).filter {
            if case .notDue = $0.value { false } else { true }
        }
    }

    /// The hashes: CPU only, on the calling thread (never the cooperative pool's or the writer's).
    package static func hash(_ inputs: [Int: Input]) -> [Int: Prepared] {
        inputs.mapValues { input in
            switch input {
            case .hash(let passcode, let cost):
                (try? PasscodeHash.make(passcode, cost: cost)).map { .newHash($0) } ?? .notDue
            case .verify(let passcode, let stored):
                .checked(storedHash: stored, matches: PasscodeHash(encoded: stored).verify(passcode))
            case .nothingDue:
                .notDue
            }
        }
    }

    /// What each passcode command of `requests` needs hashed, by command index (`nothingDue`: none). A scrypt run is costly, so
    /// it is due only for a command the transaction would act on: a parent of the child's family setting a passcode
    /// of a valid length, the child who asked typing one for a pending question while not locked out. Any other caller
    /// gets its refusal without costing the broker a hash.
    package static func inputs(
        _ requests: [BrokerRequest], store: any BrokerStorage, policy: BrokerPolicy, directory: Directory, now: Date
    ) async -> [Int: Input] {
        let work = requests.indices.compactMap { index -> (Int, BrokerCommand, Directory.Member)? in
            guard mayHash(requests[index].command) else { return nil }
            return directory.members[requests[index].memberID].map { (index, requests[index].command, $0) }
        }
        guard !work.isEmpty else { return [:] }
        let read: [Int: Input]? = try? await store.reading { store -> [Int: Input] in
            var read: [Int: Input] = [:]
            for (index, command, caller) in work {
                read[index] = try input(command, caller: caller, store: store, policy, directory, now)
            }
            return read
        }
        return read ?? Dictionary(uniqueKeysWithValues: work.map { ($0.0, Input.nothingDue) })
    }

    private static func input(
        _ command: BrokerCommand, caller: Directory.Member, store: any StorageReader, _ policy: BrokerPolicy,
        _ directory: Directory, _ now: Date
    ) throws -> Input {
        switch command {
        case .setPasscode(let childID, let passcode) where !passcode.isEmpty:
            guard caller.role.isParent, let family = caller.familyID, let child = directory.members[childID],
                child.familyID == family, directory.isChild(child, on: now),
                PasscodeHash.lengthRange.contains(passcode.count)
            else { return .nothingDue }
            return .hash(passcode: passcode, cost: policy.passcodeCost)
        case .approveInPerson(let questionID, let passcode), .declineInPerson(let questionID, let passcode):
            guard let question = try store.question(questionID), question.resolution == nil,
                question.asked.childMemberID == caller.id,
                let row = try store.passcode(of: caller.id), row.lockedUntil <= now
            else { return .nothingDue }
            return .verify(passcode: passcode, storedHash: row.hash)
        default:
            return .nothingDue
        }
    }
}
