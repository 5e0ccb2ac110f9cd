import Foundation
import HearthFleet
import HearthProtocol
import Testing

/// A real broker commits its commands on its writer stage's own thread (`WriterThread`, named `broker-writer`), not
/// on GRDB's queue by way of the cooperative pool: that thread runs while commands are answered, and only then.
@Suite("The broker's writer thread, in a real broker", .serialized, .tags(.fleet))
struct BrokerWriterThreadTests {
    /// CPU time the process's threads named `name` have run, in nanoseconds (`/proc/PID/task/*/schedstat`).
    static func cpuNanoseconds(of pid: Int32, thread name: String) throws -> UInt64 {
        let tasks = "/proc/\(pid)/task"
        var total: UInt64 = 0
        for task in try FileManager.default.contentsOfDirectory(atPath: tasks) {
            let comm = try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8)
            guard comm?.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                let schedstat = try? String(contentsOfFile: "\(tasks)/\(task)/schedstat", encoding: .utf8),
                let running = schedstat.split(separator: " ").first.flatMap({ UInt64($0) })
            else { continue }
            total += running
        }
        return total
    }

    @Test func commandsRunOnTheWriterThread() async throws {
        let spec = FleetSpec(families: [
            .init(
                "rivera", members: [.organizer("sam", devices: ["sam-phone"]), .child("kai", devices: ["kai-phone"])])
        ])
        try await Fleet.with(spec) { fleet in
            let peer = try await RawPeer.device("kai-phone", of: fleet)
            let pid = try #require(fleet.currentBroker.pid)
            _ = try await peer.request(.ping, requestID: 1)
            let before = try Self.cpuNanoseconds(of: pid, thread: "broker-writer")
            for requestID: UInt64 in 2...21 {
                let reply = try await peer.request(.ping, requestID: requestID)
                #expect({ if case .pong = reply { true } else { false } }(), "\(reply)")
            }
            let after = try Self.cpuNanoseconds(of: pid, thread: "broker-writer")
            #expect(after > before, "twenty commands answered without the writer thread running")
            await peer.close()
        }
    }
}
