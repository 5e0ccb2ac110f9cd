import FuzzSupport
import HearthCore
import HearthProtocol

/// The codec's invariants for one input: decoding never crashes, and whatever decodes re-encodes to the same bytes.
enum CodecCheck {
    static func check(_ bytes: [UInt8]) {
        let requestID = MessageCodec.peekRequestID(bytes)
        let envelope: Envelope
        do {
            envelope = try MessageCodec.decode(bytes)
        } catch {
            // A refusal must be reportable: a typed code and a text that fits an error reply.
            _ = MessageCodec.encode(.error(ErrorReply(error.code, error.description)), requestID: requestID)
            return
        }
        guard envelope.requestID == requestID else {
            fuzzFailure("request id \(envelope.requestID), peeked \(requestID)")
        }
        let encoded = MessageCodec.encode(envelope.message, requestID: envelope.requestID)
        guard encoded != bytes else { return }
        // What re-encodes differently must still mean the same, and its encoding must be the canonical one.
        guard let again = try? MessageCodec.decode(encoded), again == envelope,
            MessageCodec.encode(again.message, requestID: again.requestID) == encoded
        else { fuzzFailure("type 0x\(String(bytes[1], radix: 16)): the re-encoding decodes to something else") }
        // The lenient field (docs/PROTOCOL.md §5.5): actions are a set, read in any order, duplicates collapsed.
        if "\(envelope.message)".contains(/actions: Set\(\[[^\]]/) { return }
        // The one lossy field: an error code this build does not know decodes as `unknown` (forward compatibility).
        if case .error(let reply) = envelope.message, reply.code == .unknown, bytes.count >= 12,
            ErrorCode(rawValue: UInt16(bytes[10]) << 8 | UInt16(bytes[11])) == nil,
            Array(encoded[12...]) == Array(bytes[12...])
        {
            return
        }
        let at = bytes.indices.first { $0 >= encoded.count || bytes[$0] != encoded[$0] } ?? bytes.count
        fuzzFailure(
            """
            type 0x\(String(bytes[1], radix: 16)), \(bytes.count) bytes, re-encodes as \(encoded.count) bytes, \
            first difference at \(at): \(bytes[at..<min(at + 16, bytes.count)]) became \
            \(encoded[at..<min(at + 16, encoded.count)])
            """)
    }
}
