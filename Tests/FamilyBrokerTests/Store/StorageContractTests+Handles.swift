import Foundation
import HearthCore
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

extension StorageContractTests {
    /// Handles are looked up, added and removed as a set (one statement on PostgreSQL): by kind and value, each added
    /// or removed once however often it is named, and known ones returned in the order (and as often) as asked.
    @Test(arguments: StorageBackend.all)
    func handlesAreAddedRemovedAndLookedUpByKindAndValue(_ backend: StorageBackend) async throws {
        let (a, b, c) = (handle("a"), handle("b"), handle("c"))
        let mailA = handle("a", .emailAddress)
        try await with(backend) { (store, _) async throws in
            try await store.transaction(
                { (tx) throws in
                    #expect(try tx.addKnownHandles([a, b, a], child: "emma", question: nil) == [a, b])
                    #expect(try tx.addKnownHandles([c, b, mailA], child: "emma", question: nil) == [c, mailA])
                    #expect(try tx.knownHandles(of: "emma", among: [c, handle("x"), a, c]) == [c, a, c])
                    #expect(Set(try tx.removeKnownHandles([a, handle("x"), a], child: "emma")) == [a])
                    #expect(try tx.knownHandles(of: "emma", among: [a, b, mailA]) == [b, mailA])
                    #expect(try tx.knownHandles(of: "bob", among: [b]).isEmpty)
                    #expect(try tx.knownHandles(of: "emma", among: []).isEmpty)
                    _ = try tx.upsertContacts(
                        [
                            Contact(handle: a, allowedDuringDowntime: true),
                            Contact(handle: b, allowedDuringDowntime: false),
                        ],
                        of: "emma")
                    #expect(try tx.contactFlags(of: "emma", among: [a, mailA, b, a]) == [a: true, b: false])
                    #expect(try tx.contactFlags(of: "emma", among: [mailA]).isEmpty, "same value, another kind")
                    #expect(try tx.contactFlags(of: "bob", among: [a]).isEmpty)
                }, committed: { _ in })
            let approved = try await store.reading { try $0.approvedHandles(of: "emma").map(\.handle) }
            #expect(Set(approved) == [b, c, mailA])
        }
    }
}
