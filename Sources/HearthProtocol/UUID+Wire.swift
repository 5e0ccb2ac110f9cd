public import Foundation

extension UUID {
    /// The 16 bytes in RFC 4122 order, as the wire carries them and the stores key questions by them.
    public var wireBytes: Data { withUnsafeBytes(of: uuid) { Data($0) } }
}
