import Foundation

extension ErrorCode {
    /// True for a refusal of the moment, not of the command: the broker's store is away (`brokerUnavailable`) or the
    /// device or child is past a rate (`rateLimited`: the command rate, or the child's ask limit). Nothing was
    /// changed, and the same command sent again later may succeed, so a question already accepted into a device's
    /// outbox stays queued; any other error is the broker's final word on it.
    public var isTransient: Bool {
        switch self {
        case .brokerUnavailable, .rateLimited: true
        default: false
        }
    }
}
