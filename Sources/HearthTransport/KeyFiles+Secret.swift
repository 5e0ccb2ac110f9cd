import Foundation
import ZeroMQ

extension KeyFiles {
    /// The first line of a secret key file: both keys are 40 Z85 characters, so this line is what tells them apart.
    static let secretMarker = "# CURVE secret key: keep it on this device; enrol the .pub file beside it"

    /// True when the key file at `path` (whose key is `key`) holds a secret key: it starts with the secret key
    /// marker, or (a file written before the marker) the public key derived from it is the one in the `.pub` file
    /// beside it.
    public static func isSecretKeyFile(_ path: String, key: String) -> Bool {
        if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasPrefix(secretMarker) { return true }
        let sibling = publicPath(for: path)
        guard sibling != path, let pair = try? CurveKeyPair(secretKey: key),
            let published = try? String(contentsOfFile: sibling, encoding: .utf8)
        else { return false }
        return published.trimmingCharacters(in: .whitespacesAndNewlines) == pair.publicKey
    }
}
