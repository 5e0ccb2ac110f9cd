package import Foundation
package import HearthCore
package import HearthProtocol

/// The broker's stored records as the engine sees them, whichever backend holds them (`BrokerStorage`).
package enum Stored {
    /// A question as stored.
    package struct Question: Sendable, Equatable {
        package var asked: AskedQuestion
        package var resolution: Resolution?

        package init(asked: AskedQuestion, resolution: Resolution?) {
            self.asked = asked
            self.resolution = resolution
        }
    }

    /// The directory's stored form: one row per family (and one, id "", for members in no family), each the family's
    /// entry of the family file with keys inline. The config file seeds it; admin commands edit it.
    package struct Family: Sendable {
        package var family: FamilyFile.Family
        /// The hash of the config file's entry this row was last taken from; nil once it is only the broker's.
        package var sourceHash: String?

        package init(family: FamilyFile.Family, sourceHash: String?) {
            self.family = family
            self.sourceHash = sourceHash
        }

        /// The id of the row holding members in no family.
        package static let unaffiliatedRow = ""

        /// A family file's rows as stored: one per family, and members in no family under `unaffiliatedRow`.
        package static func rows(of file: FamilyFile) -> [(id: FamilyID, family: FamilyFile.Family)] {
            file.families.map { ($0.id, $0) }
                + [(unaffiliatedRow, FamilyFile.Family(id: unaffiliatedRow, members: file.unaffiliated ?? []))]
        }

        /// The family file that stored rows make (the inverse of `rows(of:)`).
        package static func file(from rows: [FamilyID: FamilyFile.Family]) -> FamilyFile {
            FamilyFile(
                families: rows.filter { $0.key != unaffiliatedRow }.values.sorted { $0.id < $1.id },
                unaffiliated: rows[unaffiliatedRow]?.members ?? [])
        }

        /// The encoder of stored entries and of the source hash: sorted keys, so equal entries give equal bytes.
        package static func entryEncoder() -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return encoder
        }

        /// The hash of an entry as `entryEncoder()` encodes it (FNV-1a, 64 bits): stored rows keep it.
        package static func hash(of bytes: Data) -> String {
            // Over the raw bytes: `Data`'s own iterator cost as much as the hash.
            let hash = bytes.withUnsafeBytes { raw in
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in raw {
                    hash ^= UInt64(byte)
                    hash &*= 0x100_0000_01b3
                }
                return hash
            }
            return String(hash, radix: 16)
        }
    }

    /// A child's Screen Time passcode: its scrypt hash and the wrong tries counted against it.
    package struct Passcode: Sendable {
        package var hash: String
        package var failures: Int
        package var lockedUntil: Date

        package init(hash: String, failures: Int, lockedUntil: Date) {
            self.hash = hash
            self.failures = failures
            self.lockedUntil = lockedUntil
        }
    }

    /// The Declared Age Range answer remembered for (member, app).
    package struct AgeCache: Sendable {
        package var memberID: MemberID
        package var app: BundleID
        /// The day of the first declaration, in the member's time zone: anniversaries count from it.
        package var firstDay: BirthDate
        /// The anniversary (or first day) whose information `answer` reveals.
        package var periodDay: BirthDate
        package var gates: [Int]
        package var answer: AgeRangeAnswer
        package var nextReview: Date

        package init(
            memberID: MemberID, app: BundleID, firstDay: BirthDate, periodDay: BirthDate, gates: [Int],
            answer: AgeRangeAnswer, nextReview: Date
        ) {
            self.memberID = memberID
            self.app = app
            self.firstDay = firstDay
            self.periodDay = periodDay
            self.gates = gates
            self.answer = answer
            self.nextReview = nextReview
        }
    }

    /// Where an Ask First prompt stands.
    package enum PromptStatus: Int, Sendable {
        case open = 0
        case shared = 1
        case declined = 2
        case expired = 3
    }
}
