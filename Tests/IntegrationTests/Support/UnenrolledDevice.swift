import Foundation
import HearthFleet
import HearthService

/// A real child-device daemon whose key the fleet's broker does not know; `stop()` ends it.
struct UnenrolledDevice {
    let process: SpawnedProcess
    /// Its app socket.
    let socket: String

    init(in fleet: Fleet) throws {
        socket = fleet.directory + "/run/intruder.sock"
        process = try SpawnedProcess.launch(
            try BinaryLocator.directory() + "/child-device",
            arguments: [
                "--key-file", fleet.directory + "/keys/intruder.key", "--state", fleet.directory + "/devices/intruder",
                "--socket", socket, "--broker-ready", fleet.readyFile,
            ])
    }

    /// Ends the daemon and waits for it (a `defer` cannot await).
    func stop() {
        process.stopBlocking()
    }
}
