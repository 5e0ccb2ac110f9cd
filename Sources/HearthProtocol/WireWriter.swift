public import Foundation

/// Appends protocol primitives to a byte buffer: big-endian integers, length-prefixed strings and arrays.
public struct WireWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    public mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Bytes already encoded (an event's stored encoding), appended as they are.
    public mutating func raw<C: Collection<UInt8>>(_ encoded: C) { bytes.append(contentsOf: encoded) }

    /// A u32 byte count, then the UTF-8 bytes.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A u32 byte count, then the bytes.
    public mutating func blob(_ value: [UInt8]) {
        u32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    /// 16 raw bytes, RFC 4122 order.
    public mutating func uuid(_ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
    }

    /// Milliseconds since 1970-01-01T00:00:00Z as i64.
    public mutating func date(_ value: Date) {
        i64(Wire.milliseconds(value))
    }

    /// A presence byte (0 or 1), then the value when present.
    public mutating func optional<T>(_ value: T?, _ write: (inout WireWriter, T) -> Void) {
        if let value {
            u8(1)
            write(&self, value)
        } else {
            u8(0)
        }
    }

    /// A u32 item count, then each item.
    public mutating func array<C: Collection>(_ values: C, _ write: (inout WireWriter, C.Element) -> Void) {
        u32(UInt32(values.count))
        for value in values { write(&self, value) }
    }
}
