/// A family's id, as written in the broker's family file.
public typealias FamilyID = String
/// A family member's id: unique across the broker, `[A-Za-z0-9._-]{1,64}`.
public typealias MemberID = String
/// A device's id: unique across the broker, `[A-Za-z0-9._-]{1,64}`.
public typealias DeviceID = String
/// An app's bundle id on a child device, e.g. `com.example.chat`.
public typealias BundleID = String

/// Rules for the ids above, shared by the config loader and the wire decoder.
public enum Identifier {
    /// Longest id accepted anywhere.
    public static let maxLength = 64

    /// True when `text` is 1...64 characters from `[A-Za-z0-9._-]`.
    public static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maxLength else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    /// True when `text` is a plausible bundle id: 1...255 characters from `[A-Za-z0-9._-]`.
    public static func isValidBundleID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 255 else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}
