import CZeroMQ

/// Z85 (ZeroMQ RFC 32) text encoding of binary data, as used for CURVE keys.
public enum Z85 {
    private static let alphabet = Array(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)

    // Maps an ASCII byte to its digit value, 0xFF when outside the alphabet.
    private static let digits: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// Encodes `bytes`; throws `EINVAL` unless the count is a multiple of 4.
    public static func encode(_ bytes: [UInt8]) throws -> String {
        guard bytes.count % 4 == 0 else {
            throw ZMQError(code: EINVAL, operation: "Z85.encode(\(bytes.count) bytes)")
        }
        var text = [UInt8]()
        text.reserveCapacity(bytes.count / 4 * 5)
        var index = 0
        while index < bytes.count {
            var value =
                UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16
                | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
            var chunk = [UInt8](repeating: 0, count: 5)
            for position in (0..<5).reversed() {
                chunk[position] = alphabet[Int(value % 85)]
                value /= 85
            }
            text.append(contentsOf: chunk)
            index += 4
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes `text`; throws `EINVAL` unless its length is a multiple of 5 and every character is in the Z85 alphabet.
    public static func decode(_ text: String) throws -> [UInt8] {
        let characters = Array(text.utf8)
        let invalid = ZMQError(code: EINVAL, operation: "Z85.decode")
        guard characters.count % 5 == 0 else { throw invalid }
        var bytes = [UInt8]()
        bytes.reserveCapacity(characters.count / 5 * 4)
        var index = 0
        while index < characters.count {
            var value: UInt64 = 0
            for offset in 0..<5 {
                let digit = digits[Int(characters[index + offset])]
                guard digit != 0xFF else { throw invalid }
                value = value * 85 + UInt64(digit)
            }
            // Five digits can exceed 32 bits (e.g. "#####"); such text encodes no 4-byte group.
            guard value <= UInt64(UInt32.max) else { throw invalid }
            bytes.append(UInt8(truncatingIfNeeded: value >> 24))
            bytes.append(UInt8(truncatingIfNeeded: value >> 16))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
            bytes.append(UInt8(truncatingIfNeeded: value))
            index += 5
        }
        return bytes
    }

    /// True if `text` is 40 characters of valid Z85, i.e. a 32-byte CURVE key.
    public static func isValidKey(_ text: String) -> Bool {
        guard text.utf8.count == 40, let bytes = try? decode(text) else { return false }
        return bytes.count == 32
    }
}
