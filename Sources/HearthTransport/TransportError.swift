/// Why a request got no reply.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No reply came before the deadline; `peer` says who was asked.
    case timeout(peer: String, seconds: Double)
    /// The connection was closed while the request waited.
    case closed(peer: String)
    /// The reply's type does not answer the request.
    case unexpectedReply(peer: String, type: UInt8)

    public var description: String {
        switch self {
        case .timeout(let peer, let seconds): "\(peer) did not answer within \(seconds) s"
        case .closed(let peer): "the connection to \(peer) was closed"
        case .unexpectedReply(let peer, let type):
            "\(peer) sent an unexpected reply (type 0x\(String(type, radix: 16)))"
        }
    }
}
