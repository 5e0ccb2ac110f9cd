import Foundation
import HearthCore
import HearthProtocol
import Logging
import Synchronization
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A backend under the contract test: opens a fresh store, and the same store again (as after a restart).
struct StorageBackend: Sendable, CustomTestStringConvertible {
    typealias Opened = (
        store: any BrokerStorage, reopen: @Sendable () async throws -> any BrokerStorage,
        remove: @Sendable () async -> Void
    )

    var name: String
    var open: @Sendable () async throws -> Opened

    var testDescription: String { name }

    static let sqlite = StorageBackend(name: "SQLite") {
        let temp = try TempDirectory()
        return (
            try await BrokerStore.opened(at: temp.databasePath),
            { try await BrokerStore.opened(at: temp.databasePath) }, { temp.remove() }
        )
    }

    /// A database of its own on this process's throwaway server (`TestPostgres`).
    static let postgres = StorageBackend(name: "PostgreSQL") {
        let (url, password, drop) = try await TestPostgres.database()
        return (
            try await PostgresStore.opened(url: url, password: password),
            { try await PostgresStore.opened(url: url, password: password) }, drop
        )
    }

    /// Every backend of `BrokerStorage`: a new one is added here and must pass the same tests.
    static let all: [StorageBackend] = [.sqlite, .postgres]
}

let quietLogger: Logger = {
    var logger = Logger(label: "FamilyBrokerTests")
    logger.logLevel = .critical
    return logger
}()

struct ContractError: Error {}

/// What a test's closures saw, in order: `Mutex` cannot be captured, this can.
final class Seen<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])

    func append(_ item: T) { items.withLock { $0.append(item) } }

    var all: [T] { items.withLock { $0 } }
}

/// `BrokerStorage`'s contract (its doc comment), run on every backend.
@Suite struct StorageContractTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func with(
        _ backend: StorageBackend,
        _ body: (any BrokerStorage, @Sendable () async throws -> any BrokerStorage) async throws -> Void
    ) async throws {
        let (store, reopen, remove) = try await backend.open()
        do {
            try await body(store, reopen)
        } catch {
            await remove()
            throw error
        }
        await remove()
    }

    func event(_ member: MemberID, _ sequence: UInt64, _ value: String = "h") -> Event {
        Event(
            memberID: member, sequence: sequence, createdAt: Self.now,
            body: .handlesChanged(added: [handle(value)], removed: []))
    }

    func append(_ event: Event, to store: any StorageWriter) throws {
        try store.appendEvent(event, body: Event.storedBody(ofFrame: event.publicationFrame().frame))
    }

    func asked(_ handles: [String], child: MemberID = "emma", app: BundleID = "com.example.chat") -> AskedQuestion {
        AskedQuestion(
            question: question(handles), childMemberID: child, appBundleID: app, askingDeviceID: "e1", askedAt: Self.now
        )
    }

    @Test(arguments: StorageBackend.all)
    func aCommittedTransactionIsStoredThenHandedToItsHook(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, reopen) async throws in
            let hooked = Seen<Int>()
            let result = try await store.transaction(
                { (tx) throws in
                    try append(event("emma", 1), to: tx)
                    try append(event("emma", 2), to: tx)
                    return 7
                }, committed: { value in hooked.append(value) })
            #expect(result == 7)
            #expect(hooked.all == [7])
            #expect(try await store.storedHeads() == ["emma": 2])
            #expect(
                try await store.reading { try $0.events(of: "emma", after: 0, limit: 10) } == [
                    event("emma", 1), event("emma", 2),
                ])
            // Durable: the same file opened again holds it.
            #expect(try await reopen().storedHeads() == ["emma": 2])
        }
    }

    @Test(arguments: StorageBackend.all)
    func aFailedTransactionStoresNothingAndIsNotHooked(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            let hooked = Seen<Bool>()
            await #expect(throws: ContractError.self) {
                try await store.transaction(
                    { (tx) throws in
                        try append(event("emma", 1), to: tx)
                        try tx.insert(asked(["a"]), resolution: nil)
                        throw ContractError()
                    }, committed: { _ in hooked.append(true) })
            }
            #expect(hooked.all.isEmpty)
            #expect(try await store.storedHeads().isEmpty)
            #expect(try await store.reading { try $0.pendingQuestions(child: "emma") }.isEmpty)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aSavepointThatThrowsIsUndoneAloneAndTheRestCommits(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            let kept = asked(["kept"])
            let undone = asked(["undone"])
            try await store.transaction(
                { (tx) throws in
                    try tx.savepoint { try tx.insert(kept, resolution: nil) }
                    _ = try? tx.savepoint {
                        try tx.insert(undone, resolution: nil)
                        try append(event("emma", 1), to: tx)
                        #expect(try tx.question(undone.question.id) != nil, "a transaction reads its own writes")
                        throw ContractError()
                    }
                    try append(event("bob", 1), to: tx)
                }, committed: { _ in })
            #expect(try await store.reading { try $0.question(kept.question.id)?.asked } == kept)
            #expect(try await store.reading { try $0.question(undone.question.id) } == nil)
            #expect(try await store.storedHeads() == ["bob": 1])
        }
    }

    @Test(arguments: StorageBackend.all)
    func transactionsRunAloneAndHookInCommitOrder(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            let log = Seen<String>()
            await withTaskGroup(of: Void.self) { group in
                for n in 1...8 {
                    group.addTask {
                        _ = try? await store.transaction(
                            { (tx) throws in
                                log.append("work")
                                let head = try tx.events(of: "emma", after: 0, limit: 1000).count
                                try append(event("emma", UInt64(head + 1), "h\(n)"), to: tx)
                                return head + 1
                            }, committed: { (head: Int) in log.append("committed \(head)") })
                    }
                }
            }
            let entries = log.all
            #expect(
                entries == (1...8).flatMap { ["work", "committed \($0)"] },
                "no work starts before the previous hook ran")
            #expect(try await store.storedHeads() == ["emma": 8])
        }
    }

    @Test(arguments: StorageBackend.all)
    func eventsComeBackInSequenceOrderAsTheCodecEncodedThem(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            try await store.transaction(
                { (tx) throws in
                    for sequence in [3, 1, 2] as [UInt64] { try append(event("emma", sequence), to: tx) }
                    try append(event("alice", 1), to: tx)
                }, committed: { _ in })
            let events = try await store.reading { try $0.events(of: "emma", after: 1, limit: 10) }
            #expect(events.map(\.sequence) == [2, 3])
            #expect(
                try await store.reading { try $0.events(of: "emma", after: 0, limit: 2) }.map(\.sequence) == [1, 2])
            #expect(try await store.storedHeads() == ["emma": 3, "alice": 1])
            await #expect(throws: (any Error).self, "a sequence number is stored once per member") {
                try await store.transaction(
                    { (tx) throws in try append(event("emma", 2), to: tx) }, committed: { _ in })
            }
        }
    }

    @Test(arguments: StorageBackend.all)
    func questionsArePendingUntilResolved(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            let first = asked(["x", "y"])
            let other = asked(["x", "y"], app: "com.example.other")
            let resolution = Resolution(
                questionID: first.question.id, choice: .approve, reason: .parentAnswered, answeredBy: "alice",
                resolvedAt: Self.now)
            let found = try await store.transaction(
                { (tx) throws in
                    try tx.insert(first, resolution: nil)
                    try tx.insert(other, resolution: nil)
                    let found = try tx.pendingQuestion(
                        child: "emma", app: "com.example.chat", handles: [handle("y"), handle("x")], now: Self.now)
                    try tx.resolve(first.question.id, with: resolution)
                    return found?.asked
                }, committed: { _ in })
            #expect(found == first, "the same handles in any order, from the same app")
            let (stored, pending, count) = try await store.reading { (reader) throws in
                (
                    try reader.question(first.question.id), try reader.pendingQuestions(child: "emma"),
                    try reader.askCount(child: "emma", since: Self.now, upTo: 10)
                )
            }
            #expect(stored?.resolution == resolution)
            #expect(pending.map(\.asked) == [other])
            #expect(count == 2)
        }
    }

    /// The writer reads with statements of its own (SQLite: prepared once, bound directly): what it reads inside a
    /// transaction is what a reader reads once committed, NULLs and an empty handle included.
    @Test(arguments: StorageBackend.all)
    func theWriterReadsWhatAReaderReads(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            let open = asked(["w", "x"])
            let expiring = AskedQuestion(
                question: question(["y"], expirationDate: Self.now.addingTimeInterval(60)), childMemberID: "emma",
                appBundleID: "com.example.chat", askingDeviceID: "e1", askedAt: Self.now)
            let resolution = Resolution(
                questionID: open.question.id, choice: .decline, reason: .parentAnswered, answeredBy: "bob",
                resolvedAt: Self.now)
            let settings = CommunicationSettings()
            let handles = [handle(""), handle("x"), handle("y"), handle("mum")]
            let body: @Sendable (any StorageReader) throws -> [String] = { reader in
                [
                    String(
                        describing: try reader.question(open.question.id).map {
                            [$0.asked == open, $0.resolution == resolution]
                        }),
                    "\(try reader.question(expiring.question.id)?.asked == expiring)",
                    "\(try reader.question(UUID()) == nil)",
                    "\(try reader.askCount(child: "emma", since: Self.now, upTo: 10))",
                    "\(try reader.askCount(child: "emma", since: Self.now, upTo: 1))",
                    "\(try reader.knownHandles(of: "emma", among: handles))",
                    "\(try reader.contactFlags(of: "emma", among: handles))",
                    "\(try reader.settings(of: "emma") == settings) \(try reader.settings(of: "nora") == nil)",
                    "\(try reader.events(of: "emma", after: 0, limit: 10).map(\.sequence))",
                ]
            }
            let written = try await store.transaction(
                { (tx) throws in
                    try tx.insert(open, resolution: nil)
                    try tx.insert(expiring, resolution: nil)
                    let pending = try tx.pendingQuestion(
                        child: "emma", app: "com.example.chat", handles: [handle("y")], now: Self.now)
                    #expect(pending?.asked == expiring)
                    #expect(
                        try tx.pendingQuestion(
                            child: "emma", app: "com.example.chat", handles: [handle("y")],
                            now: Self.now.addingTimeInterval(60)) == nil, "expired")
                    try tx.resolve(open.question.id, with: resolution)
                    #expect(try tx.addKnownHandles([handle(""), handle("x")], child: "emma", question: nil).count == 2)
                    let mum = Contact(handle: handle("mum"), allowedDuringDowntime: false)
                    _ = try tx.upsertContacts([mum], of: "emma")
                    try tx.saveSettings(settings, of: "emma")
                    try append(event("emma", 1), to: tx)
                    return try body(tx)
                }, committed: { _ in })
            #expect(written == (try await store.reading(body)))
            #expect(written[0] == "Optional([true, true])" && written[3] == "2" && written[4] == "1")
            #expect(written[5] == "\([handle(""), handle("x")])")
            #expect(written[6] == "\([handle("mum"): false])")
        }
    }

    @Test(arguments: StorageBackend.all)
    func changesReportWhatTheyChanged(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            try await store.transaction(
                { (tx) throws in
                    #expect(
                        try tx.addKnownHandles([handle("a"), handle("b")], child: "emma", question: nil) == [
                            handle("a"), handle("b"),
                        ])
                    #expect(
                        try tx.addKnownHandles([handle("b"), handle("c")], child: "emma", question: nil) == [
                            handle("c")
                        ])
                    #expect(try tx.removeKnownHandles([handle("a"), handle("z")], child: "emma") == [handle("a")])
                    #expect(
                        try tx.knownHandles(of: "emma", among: [handle("c"), handle("a"), handle("b")]) == [
                            handle("c"), handle("b"),
                        ])
                    let contact = Contact(handle: handle("mum"), allowedDuringDowntime: true)
                    #expect(try tx.upsertContacts([contact], of: "emma") == [handle("mum")])
                    #expect(try tx.upsertContacts([contact], of: "emma").isEmpty)
                    #expect(
                        try tx.contactFlags(of: "emma", among: [handle("mum"), handle("x")]) == [handle("mum"): true])
                    #expect(try tx.removeContacts([handle("mum"), handle("x")], of: "emma") == [handle("mum")])
                    #expect(try tx.contacts(of: "emma").isEmpty)
                }, committed: { _ in })
        }
    }

    @Test(arguments: StorageBackend.all)
    func rowsReadBackAsWritten(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            let prompt = AgePrompt(
                id: UUID(), memberID: "emma", app: "com.example.chat", gates: [13],
                range: DeclaredRange(lowerBound: nil, upperBound: 12, declaration: .guardianDeclared),
                createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(60))
            try await store.transaction(
                { (tx) throws in
                    try tx.savePasscode(Stored.Passcode(hash: "h", failures: 2, lockedUntil: Self.now), of: "emma")
                    try tx.saveSettings(CommunicationSettings(), of: "emma")
                    try tx.insertAgePrompt(prompt)
                    try tx.setAgeSharing(.always, of: "emma", by: "alice", at: Self.now)
                    try tx.revokeKey("k", device: "e1", member: "emma", at: Self.now)
                    try tx.saveFamily(entry: Data("{}".utf8), id: "f9", sourceHash: nil)
                }, committed: { _ in })
            try await store.reading { (reader) throws in
                let passcode = try reader.passcode(of: "emma")
                #expect(passcode?.hash == "h" && passcode?.failures == 2 && passcode?.lockedUntil == Self.now)
                #expect(try reader.settings(of: "emma") == CommunicationSettings())
                #expect(try reader.openAgePrompts("emma", app: "com.example.chat", now: Self.now) == [prompt])
                #expect(try reader.expiredAgePrompts(at: Self.now.addingTimeInterval(61)) == [prompt])
                #expect(try reader.ageSharing(of: "emma") == .always)
                #expect(try reader.revokedKeys() == ["k"])
                #expect(try reader.sourceHashes() == ["f9": String?.none])
            }
            try await store.transaction(
                { (tx) throws in
                    try tx.savePasscode(nil, of: "emma")
                    try tx.closeAgePrompt(prompt.id, status: .declined)
                    try tx.unrevokeKey("k")
                    try tx.deleteFamily("f9")
                }, committed: { _ in })
            try await store.reading { (reader) throws in
                #expect(try reader.passcode(of: "emma") == nil)
                #expect(try reader.agePrompt(prompt.id)?.status == .declined)
                #expect(try reader.openAgePrompts("emma", app: "com.example.chat", now: Self.now).isEmpty)
                #expect(try reader.revokedKeys().isEmpty)
                #expect(try reader.storedFile() == nil)
            }
        }
    }
}
