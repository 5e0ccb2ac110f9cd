import Foundation

/// Many devices need many descriptors: two sockets each, and libzmq's own per socket.
enum FileLimits {
    /// Raises the soft RLIMIT_NOFILE to the hard limit (children inherit it, so a launched broker gets it too).
    static func raise() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
