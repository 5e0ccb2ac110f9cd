import CZeroMQ

/// A CURVE key pair in Z85 text form.
public struct CurveKeyPair: Sendable, Equatable, Hashable {
    /// The Z85 public key, 40 characters.
    public let publicKey: String
    /// The Z85 secret key, 40 characters.
    public let secretKey: String

    /// Generates a fresh key pair (`zmq_curve_keypair`); throws `ENOTSUP` if libzmq lacks CURVE.
    public static func generate() throws -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        return CurveKeyPair(publicKey: string(publicKey), secretKey: string(secretKey))
    }

    /// Derives the public key from a Z85 secret key (`zmq_curve_public`); throws `EINVAL` if the key is malformed.
    public init(secretKey: String) throws {
        // libzmq decodes into a fixed 32-byte buffer without checking the length, so validate first.
        guard Z85.isValidKey(secretKey) else { throw ZMQError(code: EINVAL, operation: "zmq_curve_public") }
        var publicKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicKey, secretKey) == 0 else { throw ZMQError.last("zmq_curve_public") }
        self.init(publicKey: Self.string(publicKey), secretKey: secretKey)
    }

    /// Pairs two existing Z85 keys without validating them.
    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
