import Foundation
import Testing

@testable import FamilyBroker

/// Passcodes are stored only as salted scrypt hashes.
@Suite struct PasscodeHashTests {
    @Test func twoHashesOfOnePasscodeDifferAndBothVerify() throws {
        let first = try PasscodeHash.make("4711", cost: 10)
        let second = try PasscodeHash.make("4711", cost: 10)
        #expect(first.encoded != second.encoded, "a fresh salt each time")
        #expect(first.verify("4711"))
        #expect(second.verify("4711"))
        #expect(!first.verify("4712"))
        #expect(!first.verify(""))
        #expect(!first.verify("4711 "))
    }

    @Test func theStoredTextNamesTheParametersAndNeverHoldsThePasscode() throws {
        #expect(PasscodeHash.defaultCost == 15, "N = 2^15 by default")
        // The default cost once (it is slow by design), cheaper ones for the rest.
        for (passcode, cost) in [
            ("4711", PasscodeHash.defaultCost), ("correct horse battery staple", 10), ("0000", 10),
        ] {
            let hash = try PasscodeHash.make(passcode, cost: cost)
            #expect(!hash.encoded.contains(passcode))
            #expect(!hash.encoded.contains(Data(passcode.utf8).base64EncodedString().trimmingCharacters(in: ["="])))
            let parts = hash.encoded.split(separator: "$").map(String.init)
            #expect(parts.count == 6)
            #expect(Array(parts.prefix(4)) == ["scrypt", "\(cost)", "8", "1"], "scrypt, N = 2^cost, r = 8, p = 1")
            #expect(Data(base64Encoded: parts[4])?.count == 16, "a 16-byte salt")
            #expect(Data(base64Encoded: parts[5])?.count == 32, "a 32-byte hash")
            #expect(hash.verify(passcode))
        }
    }

    /// Hashes stored by any scrypt keep verifying: RFC 7914's second test vector (its first 32 bytes, which are the
    /// whole key for a 32-byte output), and a hash made by another implementation (Python's hashlib, OpenSSL).
    @Test func knownScryptHashesVerify() {
        let rfc = PasscodeHash(encoded: "scrypt$10$8$16$TmFDbA==$" + "/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI=")
        #expect(rfc.verify("password"))
        let openSSL = PasscodeHash(
            encoded: "scrypt$10$8$1$AAECAwQFBgcICQoLDA0ODw==$" + "czIrz/fxEUNsvrbkfJEaYVe/9s/iTHFyNah7nNvC+9M=")
        #expect(openSSL.verify("4711"))
        #expect(!openSSL.verify("4712"))
    }

    @Test func aDamagedOrForeignHashNeverVerifies() throws {
        let good = try PasscodeHash.make("4711", cost: 10).encoded
        var parts = good.split(separator: "$").map(String.init)
        parts[5] = Data(repeating: 0, count: 32).base64EncodedString()
        let damaged = [
            "", "4711", "scrypt$10$8$1$", "md5$10$8$1$AAAA$AAAA", parts.joined(separator: "$"),
            "scrypt$9$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAA", "scrypt$21$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAA",
            "scrypt$10$8$1$!!$!!",
            good + "$extra", String(good.dropLast(4)),
        ]
        for text in damaged {
            #expect(!PasscodeHash(encoded: text).verify("4711"), "\(text.debugDescription)")
        }
    }
}
