import Foundation
import HearthFleet

/// A real child-device daemon whose key the fleet's broker does not know; `stop()` ends it.
struct UnenrolledDevice {
    let process: Process
    /// Its app socket.
    let socket: String

    init(in fleet: Fleet) throws {
        socket = fleet.directory + "/run/intruder.sock"
        process = Process()
        process.executableURL = URL(fileURLWithPath: try BinaryLocator.directory() + "/child-device")
        process.arguments = [
            "--key-file", fleet.directory + "/keys/intruder.key", "--state", fleet.directory + "/devices/intruder",
            "--socket", socket, "--broker-ready", fleet.readyFile,
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
