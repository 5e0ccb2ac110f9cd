import Foundation

/// The name Linux shows for a thread (`/proc/PID/task/TID/comm`, `top -H`, `perf`).
public enum ThreadName {
    /// Names the calling thread (Linux keeps 15 bytes). A thread inherits its creator's name, often a cooperative
    /// pool thread's: named, its CPU shows apart in `/proc/PID/task`.
    public static func set(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
