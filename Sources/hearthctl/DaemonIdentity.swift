import Foundation
import HearthTransport

#if canImport(Glibc)
import Glibc
#endif

/// Which Hearth daemon listens on a local socket, found without sending it anything: the kernel names the listening
/// process (`SO_PEERCRED`), whose executable name is the daemon's; where the kernel cannot say, the socket file's
/// name, as `deploy/local/run` and the systemd units name them. A command sent to the wrong daemon's socket is then refused
/// with both names and the socket to use, rather than with the other daemon's puzzling error.
enum DaemonIdentity {
    static let daemons = ["child-device", "parent-device", "family-broker"]

    /// The daemon listening on `path`, or nil when it cannot be told (nobody listens, or another program does). A
    /// socket hearthctl would refuse (another user's, behind a symbolic link) is not even connected to: the command's
    /// own connection refuses it, with its reason.
    static func of(socket path: String) -> String? {
        guard (try? LocalEndpoints.verifyDaemonSocket(path)) != nil else { return nil }
        guard let pid = listenerPID(path) else {
            let file = (path as NSString).lastPathComponent
            return daemons.first { file.hasPrefix($0) }
        }
        return processName(pid).flatMap { daemons.contains($0) ? $0 : nil }
    }

    /// Refuses a command meant for `needed` when another daemon answers on `path`; nil when it may go ahead.
    static func mismatch(needed: String, path: String, command: String = invokedCommand) -> CommandFailure? {
        guard daemons.contains(needed), let found = of(socket: path), found != needed else { return nil }
        return CommandFailure(
            "\(found) answered at \(path), but `hearthctl \(command)` needs \(needed): pass "
                + "--socket with \(needed)'s socket, e.g. --socket \(socketHint(for: needed, beside: path)).")
    }

    /// The subcommand this process runs, e.g. `parent list`: the arguments before the first option, at most two.
    static var invokedCommand: String {
        CommandLine.arguments.dropFirst().prefix { !$0.hasPrefix("-") }.prefix(2).joined(separator: " ")
    }

    /// The socket `daemon` likely listens on: the default, or the given path with the other daemon's name replaced.
    static func socketHint(for daemon: String, beside path: String) -> String {
        let file = (path as NSString).lastPathComponent
        if let other = daemons.first(where: { file.hasPrefix($0) }), other != daemon {
            let directory = (path as NSString).deletingLastPathComponent
            return (directory as NSString).appendingPathComponent(daemon + file.dropFirst(other.count))
        }
        return daemon == "child-device" ? LocalEndpoints.childDeviceSocket : LocalEndpoints.parentDeviceSocket
    }

    /// The pid of the process listening on the Unix socket `path`, asked of the kernel.
    private static func listenerPID(_ path: String) -> Int32? {
        #if os(Linux)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !path.hasPrefix("@"), bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else { return nil }
        // struct ucred: pid, uid, gid (Swift does not import it).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0, credentials.pid > 0 else {
            return nil
        }
        return credentials.pid
        #else
        return nil
        #endif
    }

    private static func processName(_ pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
