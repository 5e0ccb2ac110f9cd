import Testing
import ZeroMQ

@Suite struct ZMQMonitorEventTests {
    @Test func parsesLibzmqsTwoFrames() {
        // Event 0x4000 (handshake failed, auth) with ZAP status 400, host byte order (little-endian here).
        let event = ZMQMonitorEvent(frames: [[0x00, 0x40, 0x90, 0x01, 0x00, 0x00], Array("tcp://127.0.0.1:7701".utf8)])
        #expect(
            event
                == ZMQMonitorEvent(frames: [[0x00, 0x40, 0x90, 0x01, 0x00, 0x00], Array("tcp://127.0.0.1:7701".utf8)]))
        #expect(event?.event == ZMQMonitorEvent.handshakeFailedAuth)
        #expect(event?.value == 400)
        #expect(event?.endpoint == "tcp://127.0.0.1:7701")
        #expect(ZMQMonitorEvent(frames: [[0x00, 0x40]]) == nil)
        #expect(ZMQMonitorEvent(frames: [[0, 0, 0, 0, 0], []]) == nil)
    }
}
