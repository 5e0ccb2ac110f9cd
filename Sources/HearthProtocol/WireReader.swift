public import Foundation
import HearthCore

/// Reads protocol primitives from a frame, checking every length and code; it never traps on hostile input.
public struct WireReader {
    private let bytes: [UInt8]
    public private(set) var offset: Int

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Bytes not yet read.
    public var remaining: Int { bytes.count - offset }

    private mutating func take(_ count: Int, _ field: String) throws(WireError) -> Range<Int> {
        guard count >= 0, remaining >= count else { throw .truncated(field: field) }
        let range = offset..<(offset + count)
        offset += count
        return range
    }

    public mutating func u8(_ field: String) throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(field: field) }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func u16(_ field: String) throws(WireError) -> UInt16 {
        let r = try take(2, field)
        return UInt16(bytes[r.lowerBound]) << 8 | UInt16(bytes[r.lowerBound + 1])
    }

    public mutating func u32(_ field: String) throws(WireError) -> UInt32 {
        let r = try take(4, field)
        var value: UInt32 = 0
        for i in r { value = value << 8 | UInt32(bytes[i]) }
        return value
    }

    public mutating func u64(_ field: String) throws(WireError) -> UInt64 {
        let r = try take(8, field)
        var value: UInt64 = 0
        for i in r { value = value << 8 | UInt64(bytes[i]) }
        return value
    }

    public mutating func i64(_ field: String) throws(WireError) -> Int64 { Int64(bitPattern: try u64(field)) }

    public mutating func bool(_ field: String) throws(WireError) -> Bool {
        switch try u8(field) {
        case 0: return false
        case 1: return true
        case let other: throw .unknownEnumValue(field: field, value: UInt64(other))
        }
    }

    public mutating func string(_ field: String, max: Int = Wire.maxStringBytes) throws(WireError) -> String {
        let count = Int(try u32(field))
        guard count <= max else { throw .tooLong(field: field, length: count, max: max) }
        let r = try take(count, field)
        guard let text = String(validating: bytes[r], as: UTF8.self) else { throw .invalidUTF8(field: field) }
        return text
    }

    /// A string that must be a valid member, device or family id.
    public mutating func identifier(_ field: String) throws(WireError) -> String {
        let text = try string(field, max: 64)
        guard Identifier.isValid(text) else {
            throw .invalidValue(field: field, reason: "must be 1-64 characters of A-Z a-z 0-9 . _ -")
        }
        return text
    }

    public mutating func blob(_ field: String, max: Int) throws(WireError) -> [UInt8] {
        let count = Int(try u32(field))
        guard count <= max else { throw .tooLong(field: field, length: count, max: max) }
        return Array(bytes[try take(count, field)])
    }

    public mutating func uuid(_ field: String) throws(WireError) -> UUID {
        let r = try take(16, field)
        let b = bytes[r].withUnsafeBufferPointer { Array($0) }
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    public mutating func date(_ field: String) throws(WireError) -> Date {
        let ms = try i64(field)
        guard ms.magnitude <= UInt64(Wire.maxDateMilliseconds) else {
            throw .invalidValue(
                field: field, reason: "date out of range (at most ±\(Wire.maxDateMilliseconds) ms from 1970)")
        }
        return Wire.date(milliseconds: ms)
    }

    public mutating func optional<T>(
        _ field: String, _ read: (inout WireReader) throws(WireError) -> T
    ) throws(WireError) -> T? {
        try bool(field) ? try read(&self) : nil
    }

    public mutating func array<T>(
        _ field: String, max: Int = Wire.maxArrayCount, _ read: (inout WireReader) throws(WireError) -> T
    ) throws(WireError) -> [T] {
        let count = Int(try u32(field))
        guard count <= max else { throw .tooLong(field: field, length: count, max: max) }
        // Each item takes at least one byte, so a huge count in a short frame fails before allocating.
        guard count <= remaining else { throw .truncated(field: field) }
        var items: [T] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(try read(&self)) }
        return items
    }

    public func finish() throws(WireError) {
        guard remaining == 0 else { throw .trailingBytes(count: remaining) }
    }
}
