import BrokerCore
import Foundation

/// How the broker fuzzer reads an input: up to 16 records, each `[device: u8][length: u16, big-endian][frame]`, run as
/// one batch (one transaction). A last record cut short keeps what bytes remain as its frame.
enum BrokerCommandInput {
    static let maxCommands = 16

    static func commands(_ bytes: [UInt8]) -> [CommandIntake.Inbound] {
        var commands: [CommandIntake.Inbound] = []
        var at = 0
        while at < bytes.count, commands.count < maxCommands {
            let device = FuzzFamily.devices[Int(bytes[at]) % FuzzFamily.devices.count]
            var length = bytes.count - at - 1
            var start = at + 1
            if bytes.count - at >= 3 {
                length = min(Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]), bytes.count - at - 3)
                start = at + 3
            }
            let routingID = withUnsafeBytes(of: UInt32(commands.count).bigEndian) { Array($0) }
            commands.append(.init(routingID: routingID, deviceID: device, frame: Array(bytes[start..<start + length])))
            at = start + length
        }
        return commands
    }

    /// The record for one frame, as the seed corpus writes it.
    static func record(device: UInt8, frame: [UInt8]) -> [UInt8] {
        [device, UInt8(truncatingIfNeeded: frame.count >> 8), UInt8(truncatingIfNeeded: frame.count)] + frame
    }
}
