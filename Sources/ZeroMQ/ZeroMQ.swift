import CZeroMQ

/// Facts about the linked libzmq.
public enum ZeroMQ {
    /// The runtime libzmq version (`zmq_version`).
    public static var version: (major: Int, minor: Int, patch: Int) {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (Int(major), Int(minor), Int(patch))
    }

    /// True if libzmq was built with `capability`, e.g. `"curve"` or `"ipc"` (`zmq_has`).
    public static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }
}
