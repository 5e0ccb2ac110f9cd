import Foundation
public import ZeroMQ

/// CURVE key files: `NAME.key` holds the Z85 secret key (mode 0600, never logged) after a `#` line saying so,
/// `NAME.pub` the Z85 public key.
public enum KeyFiles {
    /// Why a key file could not be used.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Generates a key pair and writes `base.key` (0600) and `base.pub`; refuses to overwrite an existing secret key.
    @discardableResult
    public static func generate(at base: String) throws -> CurveKeyPair {
        let keys = try CurveKeyPair.generate()
        let secretPath = base + ".key"
        guard !FileManager.default.fileExists(atPath: secretPath) else {
            throw Failure(path: secretPath, reason: "exists already; remove it first to make a new key")
        }
        try writeSecret(keys.secretKey, to: secretPath)
        try writePublic(keys.publicKey, to: base + ".pub")
        return keys
    }

    private static func writeSecret(_ secret: String, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        // Created 0600 from the start: the secret is never readable by others, not even for a moment.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        let text = Array((secretMarker + "\n" + secret + "\n").utf8)
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == text.count else { throw Failure(path: path, reason: "short write") }
    }

    /// Public keys are meant to be copied into family files: readable by all, writable by the owner only, whatever the umask.
    private static func writePublic(_ key: String, to path: String) throws {
        try (key + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    }

    /// Loads the pair whose secret key is at `secretPath`, deriving the public key.
    public static func loadPair(secretPath: String) throws -> CurveKeyPair {
        let secret = try readKey(secretPath)
        do {
            return try CurveKeyPair(secretKey: secret)
        } catch {
            throw Failure(path: secretPath, reason: "not a Z85 CURVE secret key")
        }
    }

    /// Loads a Z85 public key; refuses a secret key file (`isSecretKeyFile`), naming the `.pub` to use instead.
    public static func loadPublic(_ path: String) throws -> String {
        let key = try readKey(path)
        guard Z85.isValidKey(key) else { throw Failure(path: path, reason: "not a 40-character Z85 CURVE public key") }
        if isSecretKeyFile(path, key: key) {
            throw Failure(
                path: path,
                reason: "holds a secret key, which must never leave its device: use \(publicPath(for: path)) instead")
        }
        return key
    }

    /// Loads the secret key at `secretPath` if it exists, else generates the pair there. The public key goes beside
    /// it: `x.key` gets `x.pub`; any other name gets `.pub` appended.
    public static func loadOrGenerate(secretPath: String) throws -> CurveKeyPair {
        if FileManager.default.fileExists(atPath: secretPath) { return try loadPair(secretPath: secretPath) }
        let keys = try CurveKeyPair.generate()
        try writeSecret(keys.secretKey, to: secretPath)
        try writePublic(keys.publicKey, to: publicPath(for: secretPath))
        return keys
    }

    /// Where the public key of the secret key at `secretPath` goes: `x.key` gets `x.pub`; any other name gets `.pub`
    /// appended.
    public static func publicPath(for secretPath: String) -> String {
        secretPath.hasSuffix(".key") ? String(secretPath.dropLast(4)) + ".pub" : secretPath + ".pub"
    }

    /// The key in a key file: its first line that is not a `#` comment.
    private static func readKey(_ path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(path: path, reason: "cannot read the key file")
        }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.first { !$0.isEmpty && !$0.hasPrefix("#") } ?? ""
    }
}
