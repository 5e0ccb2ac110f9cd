/// The image types the page shows an avatar in, told by the bytes themselves: the app says nothing of the type, and a
/// browser must never guess (an avatar that sniffs as HTML or SVG would run in the page's origin).
enum PageImage {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp` when `bytes` start as one; nil otherwise (no avatar).
    static func contentType(_ bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        return nil
    }
}
