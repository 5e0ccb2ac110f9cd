import CZeroMQ
import Foundation
import Synchronization
import ZeroMQ

/// PUB→SUB messages per second over loopback TCP: the Swift binding (`ZMQSocket`) against libzmq's C API called
/// directly, same message size, same socket options, a context (one I/O thread) per side as two processes would have.
public enum PubSubBenchmark {
    public enum Variant: String, Sendable, CaseIterable {
        /// `zmq_send`/`zmq_recv` into a reused buffer.
        case raw
        /// `ZMQSocket.send(_:)` / `ZMQSocket.receive()`, as the daemons use them.
        case binding
    }

    /// Messages per second received by the subscriber, from its first data message to its last.
    public static func run(_ variant: Variant, messages: Int, size: Int) throws -> Double {
        let joined = Atomic<Bool>(false)
        let pubContext = try ZMQContext()
        let subContext = try ZMQContext()
        let pub = try ZMQSocket(context: pubContext, type: .pub)
        let sub = try ZMQSocket(context: subContext, type: .sub)
        for socket in [pub, sub] {
            try socket.setLinger(milliseconds: 0)
            try socket.setSendHighWaterMark(0)
            try socket.setReceiveHighWaterMark(0)
        }
        try pub.bind("tcp://127.0.0.1:0")
        try sub.subscribe([])
        try sub.connect(try pub.lastEndpoint)
        let payload = [UInt8](repeating: 0x61, count: size)
        let marker: [UInt8] = [0]
        let result = Mutex<Double>(0)
        let done = Atomic<Bool>(false)
        // The subscriber runs on its own thread; the publisher on this one.
        let handoff = HandOff(sub)
        let subscriber = Thread {
            let sub = handoff.value
            var received = 0
            var first = ContinuousClock.now
            switch variant {
            case .raw:
                let raw = sub.rawHandle
                var buffer = [UInt8](repeating: 0, count: size + 16)
                while received < messages {
                    let n = buffer.withUnsafeMutableBytes { zmq_recv(raw, $0.baseAddress, $0.count, 0) }
                    if n == 1 {
                        joined.store(true, ordering: .relaxed)
                        continue
                    }
                    guard n == size else { continue }
                    if received == 0 { first = .now }
                    received += 1
                }
            case .binding:
                while received < messages {
                    guard let message = try? sub.receive(), let frame = message.frames.first else { continue }
                    if frame.count == 1 {
                        joined.store(true, ordering: .relaxed)
                        continue
                    }
                    if received == 0 { first = .now }
                    received += 1
                }
            }
            let elapsed = ContinuousClock.now - first
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            result.withLock { $0 = Double(messages - 1) / seconds }
            done.store(true, ordering: .releasing)
        }
        subscriber.start()
        // PUB drops until the subscription arrives: send markers until the subscriber has seen one.
        while !joined.load(ordering: .relaxed) {
            try pub.send([marker])
            usleep(1000)
        }
        switch variant {
        case .raw:
            let raw = pub.rawHandle
            payload.withUnsafeBytes { bytes in
                for _ in 0..<messages { _ = zmq_send(raw, bytes.baseAddress, size, 0) }
            }
        case .binding:
            for _ in 0..<messages { try pub.send([payload]) }
        }
        while !done.load(ordering: .acquiring) { usleep(1000) }
        pub.close()
        sub.close()
        pubContext.terminate()
        subContext.terminate()
        return result.withLock { $0 }
    }
}

/// Moves a value that is not `Sendable` to the one thread that will use it from then on.
struct HandOff<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
