import Foundation
import HearthProtocol
import Testing

/// `MessageType.isBrokerCommand` says what docs/PROTOCOL.md's table of message types says: a type is a broker command
/// exactly when its direction names the broker's ingress ("→ broker", not the admin socket).
struct BrokerCommandTests {
    static let protocolDoc = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/PROTOCOL.md")

    /// Type code → direction column, from the table's rows (`| 0x01 | hello | device → broker | welcome |`).
    static func documentedDirections() throws -> [UInt8: String] {
        var directions: [UInt8: String] = [:]
        for line in try String(contentsOf: protocolDoc, encoding: .utf8).split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[0].hasPrefix("0x"), cells[0].count == 4,
                let code = UInt8(cells[0].dropFirst(2), radix: 16), cells[1].first?.isLetter == true
            else { continue }
            directions[code] = cells[2]
        }
        return directions
    }

    @Test func everyMessageIsClassifiedAsTheProtocolTableSays() throws {
        let directions = try Self.documentedDirections()
        #expect(Set(directions.keys) == Fixtures.typeCodes, "the table lists every type code")
        for message in Fixtures.messages {
            let direction = try #require(directions[message.typeCode], "0x\(String(message.typeCode, radix: 16))")
            let toIngress = direction.contains("→ broker") && !direction.contains("→ broker admin")
            #expect(message.isBrokerCommand == toIngress, "0x\(String(message.typeCode, radix: 16)): \(direction)")
        }
    }

    @Test func theAgeRangeCommandsAreBrokerCommands() {
        let commands = Set(Fixtures.messages.filter(\.isBrokerCommand).map(\.typeCode))
        #expect(commands.isSuperset(of: [0x40, 0x41, 0x42, 0x43]))
        #expect(commands.isDisjoint(with: [0x44, 0x45, 0x50]))
    }
}
