import Foundation

/// A port another process holds, found when a daemon starts listening (its ZeroMQ endpoints, its ops endpoint, the
/// parent's page). Not a configuration to fix but, most often, a moment to wait: the previous instance is still
/// stopping, or another run holds it. The daemon says so in one line and exits with EX_TEMPFAIL, which systemd's
/// `Restart=on-failure` retries, where EX_CONFIG (78) is not retried.
public enum AddressInUse {
    /// EX_TEMPFAIL (sysexits.h).
    public static let exitStatus: Int32 = 75

    /// Whether `error`, or the error it wraps, is a bind refused with `EADDRINUSE`. The libraries report it as text
    /// (libzmq's and FlyingFox's errors name `strerror`), so the text is what is matched.
    public static func matches(_ error: any Error) -> Bool {
        String(describing: error).contains(String(cString: strerror(EADDRINUSE)))
    }

    /// The one line a daemon logs before it exits with `exitStatus`.
    public static func message(_ error: any Error) -> String {
        "cannot start: an address it listens on is in use by another process (\(error)); it exits "
            + "\(exitStatus) so that its service manager tries again"
    }
}
