/// Why a frame could not be decoded. Every case names the field, so a peer's developer knows which rule was broken.
public enum WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The frame ended inside `field`.
    case truncated(field: String)
    /// `field` is not valid UTF-8.
    case invalidUTF8(field: String)
    /// `field` holds an enum code this version does not define.
    case unknownEnumValue(field: String, value: UInt64)
    /// `field` is longer than the protocol allows.
    case tooLong(field: String, length: Int, max: Int)
    /// Bytes were left after the message's last field.
    case trailingBytes(count: Int)
    /// The header names a protocol version this peer does not speak.
    case unsupportedVersion(UInt8)
    /// The header names a message type this version does not define.
    case unknownMessageType(UInt8)
    /// `field` is well-formed but breaks a rule, e.g. an id with forbidden characters.
    case invalidValue(field: String, reason: String)
    /// The message has the wrong number of ZeroMQ frames.
    case wrongFrameCount(expected: Int, got: Int)

    public var description: String {
        switch self {
        case .truncated(let field): "frame ends inside \(field)"
        case .invalidUTF8(let field): "\(field) is not valid UTF-8"
        case .unknownEnumValue(let field, let value): "\(field) has unknown value \(value)"
        case .tooLong(let field, let length, let max): "\(field) is \(length) long, at most \(max) allowed"
        case .trailingBytes(let count): "\(count) unexpected bytes after the last field"
        case .unsupportedVersion(let version):
            "protocol version \(version) is not supported (this peer speaks \(Wire.version))"
        case .unknownMessageType(let type): "unknown message type 0x\(String(type, radix: 16))"
        case .invalidValue(let field, let reason): "\(field): \(reason)"
        case .wrongFrameCount(let expected, let got): "expected \(expected) frame(s), got \(got)"
        }
    }

    /// The error code a broker or daemon replies with for this decoding failure.
    public var code: ErrorCode {
        switch self {
        case .unsupportedVersion: .unsupportedVersion
        case .unknownMessageType: .unknownMessageType
        default: .malformedMessage
        }
    }
}
