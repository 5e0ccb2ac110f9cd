import CSodium
import Foundation

/// A Screen Time passcode stored as a salted, slow scrypt hash: `scrypt$<log2 N>$<r>$<p>$<salt base64>$<hash base64>`.
///
/// A 4-digit passcode has only 10,000 values, so no hash stops an attacker who has the database file; the hash keeps
/// the passcode out of backups and logs, and the broker's attempt limit and lockout are what stop guessing online.
public struct PasscodeHash: Sendable, Equatable {
    public let encoded: String

    /// scrypt N = 2^15, r = 8, p = 1: about 32 MiB and tens of milliseconds per attempt.
    public static let defaultCost = 15

    /// Passcodes are 4 to 64 characters.
    public static let lengthRange = 4...64

    /// Hashes `passcode` with a fresh random salt.
    public static func make(_ passcode: String, cost: Int = defaultCost) throws -> PasscodeHash {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = generator.next() }
        let hash = try derive(passcode, salt: salt, cost: cost, r: 8, p: 1)
        return PasscodeHash(
            encoded: "scrypt$\(cost)$8$1$\(Data(salt).base64EncodedString())$\(Data(hash).base64EncodedString())")
    }

    public init(encoded: String) {
        self.encoded = encoded
    }

    /// True when `passcode` is the one hashed; compares in constant time.
    public func verify(_ passcode: String) -> Bool {
        let parts = encoded.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let cost = Int(parts[1]), let r = Int(parts[2]),
            let p = Int(parts[3]),
            (10...20).contains(cost), let salt = Data(base64Encoded: parts[4]),
            let expected = Data(base64Encoded: parts[5]),
            let actual = try? Self.derive(passcode, salt: Array(salt), cost: cost, r: r, p: p),
            actual.count == expected.count
        else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(actual, expected) { difference |= a ^ b }
        return difference == 0
    }

    /// libsodium's one-time set-up (it picks the fastest scrypt core for this CPU); safe to repeat, and libzmq may
    /// already have done it.
    private static let sodiumReady = sodium_init() >= 0

    /// scrypt (RFC 7914) by libsodium: the same bytes as any other implementation for the same parameters, so hashes
    /// stored before keep verifying.
    private static func derive(_ passcode: String, salt: [UInt8], cost: Int, r: Int, p: Int) throws -> [UInt8] {
        guard sodiumReady, (1..<64).contains(cost), let blockSize = UInt32(exactly: r),
            let parallelism = UInt32(exactly: p)
        else { throw DerivationFailed() }
        let password = Array(passcode.utf8)
        var key = [UInt8](repeating: 0, count: 32)
        let status = crypto_pwhash_scryptsalsa208sha256_ll(
            password, password.count, salt, salt.count, UInt64(1) << UInt64(cost), blockSize, parallelism, &key,
            key.count)
        guard status == 0 else { throw DerivationFailed() }
        return key
    }

    /// scrypt refused its parameters (libsodium's checks) or could not allocate its memory.
    struct DerivationFailed: Error {}
}
