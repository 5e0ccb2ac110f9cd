import Foundation

/// The lab build's process name: `family-broker`, as the shipped daemon's, so that what finds the broker by name
/// (`pgrep -x family-broker` in deploy/bench, hearthctl's check of who listens on a socket) finds it under a fleet too.
/// Linux keeps 15 bytes of a name, and `family-broker-lab` would show as `family-broker-l`.
enum LabProcessName {
    static func set() {
        // /proc/self is the thread group's leader whichever thread writes: this names the process, not this thread.
        let fd = open("/proc/self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let name = Array("family-broker".utf8)
        _ = name.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
