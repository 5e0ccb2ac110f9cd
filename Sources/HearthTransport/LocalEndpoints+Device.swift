import Foundation

extension LocalEndpoints {
    /// The socket of this device's daemon, whichever it runs: `$HEARTH_DEVICE_SOCKET`, else `$HEARTH_CHILD_SOCKET`,
    /// else child-device's socket if it exists, else parent-device's if it exists, else child-device's path.
    public static var deviceSocket: String {
        let env = ProcessInfo.processInfo.environment
        if let path = env["HEARTH_DEVICE_SOCKET"], !path.isEmpty { return path }
        if let path = env["HEARTH_CHILD_SOCKET"], !path.isEmpty { return path }
        if socketExists(childDeviceSocket) { return childDeviceSocket }
        if socketExists(parentDeviceSocket) { return parentDeviceSocket }
        return childDeviceSocket
    }

    /// True when a daemon could be listening at `path`: the socket file exists (Linux abstract sockets, `@name`,
    /// have no file and always count).
    public static func socketExists(_ path: String) -> Bool {
        path.hasPrefix("@") || FileManager.default.fileExists(atPath: path)
    }
}
