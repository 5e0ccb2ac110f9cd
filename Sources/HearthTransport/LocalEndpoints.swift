import Foundation

/// Where the device daemons' local ipc sockets live by default, so daemons and their clients agree without configuration.
public enum LocalEndpoints {
    /// `$HEARTH_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/hearth`, else `/tmp/hearth-<uid>`.
    public static var runtimeDirectory: String {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["HEARTH_RUNTIME_DIR"], !dir.isEmpty { return dir }
        if let xdg = env["XDG_RUNTIME_DIR"], !xdg.isEmpty { return xdg + "/hearth" }
        return "/tmp/hearth-\(getuid())"
    }

    /// The child-device's app socket path: `$HEARTH_CHILD_SOCKET`, else `<runtime dir>/child-device.sock`.
    public static var childDeviceSocket: String {
        ProcessInfo.processInfo.environment["HEARTH_CHILD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
            ?? runtimeDirectory + "/child-device.sock"
    }

    /// The parent-device's control socket path: `$HEARTH_PARENT_SOCKET`, else `<runtime dir>/parent-device.sock`.
    public static var parentDeviceSocket: String {
        ProcessInfo.processInfo.environment["HEARTH_PARENT_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
            ?? runtimeDirectory + "/parent-device.sock"
    }

    /// The ZeroMQ endpoint for a socket path.
    public static func ipc(_ path: String) -> String { "ipc://" + path }
}
