import Foundation
import HearthCore
import HearthProtocol
import Testing

/// Exact frames of the cluster's redirect (docs/PROTOCOL.md §6.2, 0x89), and the values a device must refuse.
@Suite struct GoldenBytesClusterTests {
    static let key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"

    @Test func redirect() throws {
        let message = Message.redirect(
            BrokerRedirect(partition: 5, epoch: 0x0102, ingress: "tcp://h:1", egress: "ipc://e", publicKey: Self.key))
        let frame = MessageCodec.encode(message, requestID: 3)
        let expected: [UInt8] =
            [
                0x01, 0x89, 0, 0, 0, 0, 0, 0, 0, 0x03,  // header: version, type redirect, request id 3
                0x00, 0x00, 0x00, 0x05,  // partition, u32
                0, 0, 0, 0, 0, 0, 0x01, 0x02,  // epoch, u64
                0x00, 0x00, 0x00, 0x09,  // ingress: string length 9
            ] + Array("tcp://h:1".utf8) + [0x00, 0x00, 0x00, 0x07] + Array("ipc://e".utf8)
            + [0x00, 0x00, 0x00, 0x28] + Array(Self.key.utf8)
        #expect(frame == expected)
        #expect(try MessageCodec.decode(frame) == Envelope(requestID: 3, message: message))
    }

    @Test(arguments: [
        ("http://h:1", "redirect.ingress"), ("tcp://", "redirect.ingress"), ("tcp://h\n:1", "redirect.ingress"),
    ])
    func badEndpointsAreNamed(endpoint: String, field: String) {
        let frame = MessageCodec.encode(
            .redirect(
                BrokerRedirect(partition: 0, epoch: 1, ingress: endpoint, egress: "tcp://e:2", publicKey: Self.key)))
        #expect(throws: WireError.self) { try MessageCodec.decode(frame) }
        do {
            _ = try MessageCodec.decode(frame)
        } catch {
            guard case .invalidValue(let named, _) = error else {
                Issue.record("expected invalidValue, got \(error)")
                return
            }
            #expect(named == field)
        }
    }

    @Test func aKeyThatIsNotZ85IsRefused() {
        let bad = String(repeating: "~", count: 40)
        let frame = MessageCodec.encode(
            .redirect(BrokerRedirect(partition: 0, epoch: 1, ingress: "tcp://h:1", egress: "tcp://h:2", publicKey: bad))
        )
        let refusal = WireError.invalidValue(field: "redirect.publicKey", reason: "must be a Z85 key of 40 characters")
        #expect(throws: refusal) { try MessageCodec.decode(frame) }
    }

    @Test func aRedirectIsNotABrokerCommand() {
        #expect(!MessageType.redirect.isBrokerCommand)
    }
}
