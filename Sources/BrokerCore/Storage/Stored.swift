import Foundation
import HearthCore
import HearthProtocol

/// The broker's stored records as the engine sees them, whichever backend holds them (`BrokerStorage`).
enum Stored {
    /// A question as stored.
    struct Question: Sendable, Equatable {
        var asked: AskedQuestion
        var resolution: Resolution?
    }

    /// The directory's stored form: one row per family (and one, id "", for members in no family), each the family's
    /// entry of the family file with keys inline. The config file seeds it; admin commands edit it.
    struct Family: Sendable {
        var family: FamilyFile.Family
        /// The hash of the config file's entry this row was last taken from; nil once it is only the broker's.
        var sourceHash: String?

        /// The id of the row holding members in no family.
        static let unaffiliatedRow = ""

        /// A family file's rows as stored: one per family, and members in no family under `unaffiliatedRow`.
        static func rows(of file: FamilyFile) -> [(id: FamilyID, family: FamilyFile.Family)] {
            file.families.map { ($0.id, $0) }
                + [(unaffiliatedRow, FamilyFile.Family(id: unaffiliatedRow, members: file.unaffiliated ?? []))]
        }

        /// The family file that stored rows make (the inverse of `rows(of:)`).
        static func file(from rows: [FamilyID: FamilyFile.Family]) -> FamilyFile {
            FamilyFile(
                families: rows.filter { $0.key != unaffiliatedRow }.values.sorted { $0.id < $1.id },
                unaffiliated: rows[unaffiliatedRow]?.members ?? [])
        }

        /// The encoder of stored entries and of the source hash: sorted keys, so equal entries give equal bytes.
        static func entryEncoder() -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return encoder
        }

        /// The hash of an entry as `entryEncoder()` encodes it (FNV-1a, 64 bits): stored rows keep it.
        static func hash(of bytes: Data) -> String {
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
    struct Passcode: Sendable {
        var hash: String
        var failures: Int
        var lockedUntil: Date
    }

    /// The Declared Age Range answer remembered for (member, app).
    struct AgeCache: Sendable {
        var memberID: MemberID
        var app: BundleID
        /// The day of the first declaration, in the member's time zone: anniversaries count from it.
        var firstDay: BirthDate
        /// The anniversary (or first day) whose information `answer` reveals.
        var periodDay: BirthDate
        var gates: [Int]
        var answer: AgeRangeAnswer
        var nextReview: Date
    }

    /// Where an Ask First prompt stands.
    enum PromptStatus: Int, Sendable {
        case open = 0
        case shared = 1
        case declined = 2
        case expired = 3
    }
}
