import Foundation
import HearthCore
import HearthProtocol
import Logging
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The gate's rules without a socket: who gets in (ZAP), which topic a subscription earns, what reaches the engine.
@Suite struct GateTests {
    static let logger: Logger = {
        var logger = Logger(label: "GateTests")
        logger.logLevel = .critical
        return logger
    }()

    func makeGate(_ directory: Directory, rate: Double = 100, burst: Double = 100) -> Gate {
        Gate(directory: DirectoryBox(directory), commandRate: rate, commandBurst: burst)
    }

    func zapFrames(mechanism: String = "CURVE", key: [UInt8]) -> [[UInt8]] {
        [Array("1.0".utf8), [7], Array("hearth".utf8), Array("127.0.0.1".utf8), [], Array(mechanism.utf8), key]
    }

    func isDrop(_ admission: Gate.Admission) -> Bool {
        if case .drop = admission { return true }
        return false
    }

    func isAdmit(_ admission: Gate.Admission) -> Bool {
        if case .admit = admission { return true }
        return false
    }

    // MARK: ZAP

    @Test func anEnrolledKeyGetsInAsItsDevice() throws {
        let directory = try TestFamily.directory()
        let gate = makeGate(directory)
        let key = try #require(directory.devices["e1"]?.publicKey)
        let reply = gate.zapReply(zapFrames(key: try Z85.decode(key)), logger: Self.logger)
        #expect(reply == [Array("1.0".utf8), [7], Array("200".utf8), Array("OK".utf8), Array("e1".utf8), []])
    }

    @Test func anUnknownKeyIsRefused() throws {
        let gate = makeGate(try TestFamily.directory())
        let stranger = try Z85.decode(try CurveKeyPair.generate().publicKey)
        let reply = gate.zapReply(zapFrames(key: stranger), logger: Self.logger)
        #expect(reply[2] == Array("400".utf8))
        #expect(reply[4].isEmpty, "no User-Id for a refused key")
    }

    @Test func onlyCURVEGetsIn() throws {
        let directory = try TestFamily.directory()
        let key = try Z85.decode(try #require(directory.devices["a1"]?.publicKey))
        #expect(
            makeGate(directory).zapReply(zapFrames(mechanism: "NULL", key: key), logger: Self.logger)[2]
                == Array("400".utf8))
        #expect(
            makeGate(directory).zapReply(zapFrames(key: Array(key.prefix(31))), logger: Self.logger)[2]
                == Array("400".utf8))
    }

    @Test func aMalformedZAPRequestStillGetsAnAnswer() throws {
        let reply = makeGate(try TestFamily.directory()).zapReply([Array("1.0".utf8)], logger: Self.logger)
        #expect(reply.count == 6)
        #expect(reply[2] == Array("400".utf8))
    }

    @Test func aRevokedKeyIsRefusedOnceTheDirectoryChanges() throws {
        let directory = try TestFamily.directory()
        let box = DirectoryBox(directory)
        let gate = Gate(directory: box, commandRate: 10, commandBurst: 10)
        let key = try Z85.decode(try #require(directory.devices["e1"]?.publicKey))
        #expect(gate.zapReply(zapFrames(key: key), logger: Self.logger)[2] == Array("200".utf8))
        var file = directory.file
        file.families[0].members[3].devices = []
        box.replace(try Directory(file: file, keysDirectory: "/nonexistent", source: "test"))
        #expect(gate.zapReply(zapFrames(key: key), logger: Self.logger)[2] == Array("400".utf8))
    }

    // MARK: subscriptions

    @Test func aSubscriptionEarnsExactlyTheDevicesOwnMember() throws {
        let gate = makeGate(try TestFamily.directory())
        #expect(gate.grant([1], device: "e1") == .topic("emma"), "subscribing to everything")
        #expect(gate.grant([1] + Wire.topic(for: "zed"), device: "z1") == .topic("zed"), "to its own topic")
        #expect(gate.grant([0], device: "e1") == .nothing, "an unsubscription")
        #expect(gate.grant([0] + Wire.topic(for: "emma"), device: "e1") == .nothing, "from its own topic")
        #expect(gate.grant([1], device: "nobody") == .nothing, "an unknown device")
        #expect(gate.grant([1], device: nil) == .nothing, "no User-Id (libzmq's own unsubscriptions)")
    }

    @Test func aSubscriptionNoDeviceSendsIsHostile() throws {
        let gate = makeGate(try TestFamily.directory())
        func isHostile(_ grant: Gate.Grant) -> Bool {
            if case .hostile = grant { return true }
            return false
        }
        #expect(isHostile(gate.grant([1] + Wire.topic(for: "alice"), device: "z1")), "another member's topic")
        #expect(isHostile(gate.grant([1] + Array("e".utf8), device: "e1")), "a prefix of its own topic")
        #expect(isHostile(gate.grant([0] + Wire.topic(for: "alice"), device: "e1")), "unsubscribing another's")
        #expect(isHostile(gate.grant([], device: "e1")), "an empty frame")
        #expect(isHostile(gate.grant([2, 3], device: "e1")), "neither a subscription nor an unsubscription")
        #expect(isHostile(gate.grant([1], extraFrames: 1, device: "e1")), "several frames")
        let long = [1] + [UInt8](repeating: 0x61, count: Gate.longestSubscription)
        #expect(
            gate.grant(long, device: "e1") == .hostile("a subscription of \(long.count) bytes, longer than any topic"))
    }

    @Test func aCutOffDeviceIsRefusedAndDroppedUntilItsTimeIsUp() throws {
        let directory = try TestFamily.directory()
        let gate = Gate(directory: DirectoryBox(directory), commandRate: 100, commandBurst: 100, cutOff: .seconds(60))
        #expect(gate.cutOff.cutOff("e1"))
        #expect(!gate.cutOff.cutOff("e1"), "already cut off: counted once")
        #expect(gate.grant([1], device: "e1") == .cutOff)
        guard case .disconnect = gate.admit([[5], MessageCodec.encode(.ping, requestID: 1)], device: "e1") else {
            Issue.record("a cut-off device's command is not dropped")
            return
        }
        let key = try #require(directory.devices["e1"]?.publicKey)
        let reply = gate.zapReply(zapFrames(key: try Z85.decode(key)), logger: Self.logger)
        #expect(reply[2] == Array("400".utf8))
        #expect(reply[3] == Array("key cut off for a while".utf8))
        #expect(gate.grant([1], device: "a1") == .topic("alice"), "another device of the family is not")
        #expect(!gate.cutOff.contains("e1", now: .now + .seconds(61)), "it ends by itself")
    }

    @Test func aSubscriptionLoopIsIgnoredPastItsAllowance() throws {
        let gate = makeGate(try TestFamily.directory())
        let grants = (0..<100).map { _ in gate.grant([1], device: "e1") }
        let granted = grants.filter { $0 == .topic("emma") }.count
        #expect(granted >= 20 && granted < 30, "a burst of 20 and one a second: \(granted)")
        #expect(grants.filter { $0 == .flood }.count == 100 - granted, "the rest are a flood")
        #expect(gate.grant([1], device: "a1") == .topic("alice"), "another device keeps its own allowance")
    }

    // MARK: admission

    @Test func anEnrolledDevicesCommandIsAdmitted() throws {
        let gate = makeGate(try TestFamily.directory())
        let frame = MessageCodec.encode(.ping, requestID: 9)
        guard case .admit(let inbound) = gate.admit([[1, 2], frame], device: "e1") else {
            Issue.record("not admitted")
            return
        }
        #expect(inbound.routingID == [1, 2])
        #expect(inbound.deviceID == "e1")
        #expect(inbound.frame == frame)
    }

    @Test func anUnknownOrRevokedDeviceGetsNothing() throws {
        let gate = makeGate(try TestFamily.directory())
        let frame = MessageCodec.encode(.ping, requestID: 9)
        #expect(isDrop(gate.admit([[1], frame], device: "revoked")))
        #expect(isDrop(gate.admit([[1], frame], device: nil)))
    }

    @Test func aFloodIsToldOnceThenIgnored() throws {
        let gate = makeGate(try TestFamily.directory(), rate: 1, burst: 3)
        let frame = MessageCodec.encode(.sync(after: 0, limit: 100), requestID: 42)
        var admitted = 0
        var answered: [[UInt8]] = []
        var dropped = 0
        for _ in 0..<10 {
            switch gate.admit([[5], frame], device: "a1") {
            case .admit: admitted += 1
            case .answer(_, let reply): answered.append(reply)
            case .drop: dropped += 1
            case .hostile, .disconnect: Issue.record("a well-formed command is not hostile")
            }
        }
        #expect(admitted == 3)
        #expect(answered.count == 1, "one refusal, then silence while it floods")
        #expect(dropped == 6)
        let envelope = try MessageCodec.decode(try #require(answered.first))
        #expect(envelope.requestID == 42)
        #expect(envelope.message == .error(ErrorReply(.rateLimited, "too many commands from a1; at most 1/s")))
        #expect(isAdmit(gate.admit([[5], frame], device: "b1")), "b1 has its own bucket")
    }

    @Test func pingsHaveTheirOwnAllowanceAndNeverTakeTheCommands() throws {
        let gate = makeGate(try TestFamily.directory(), rate: 1, burst: 1)
        let ping = MessageCodec.encode(.ping, requestID: 7)
        let sync = MessageCodec.encode(.sync(after: 0, limit: 100), requestID: 8)
        // A device whose command rate is one a second still pings as it links, and its command still goes in.
        for _ in 0..<Int(Gate.pingBurst) { #expect(isAdmit(gate.admit([[5], ping], device: "a1"))) }
        #expect(isAdmit(gate.admit([[5], sync], device: "a1")))
        // Pings past their own allowance are refused like commands: told once, then silence.
        guard case .answer(_, let reply) = gate.admit([[5], ping], device: "a1") else {
            Issue.record("the first ping past the allowance is told")
            return
        }
        let envelope = try MessageCodec.decode(reply)
        #expect(envelope.requestID == 7)
        let limit = Int(Gate.pingRate)
        #expect(envelope.message == .error(ErrorReply(.rateLimited, "too many pings from a1; at most \(limit)/s")))
        #expect(isDrop(gate.admit([[5], ping], device: "a1")))
        // A command past its own allowance is refused by the commands' bucket, whatever the pings did.
        guard case .answer(_, let refusal) = gate.admit([[5], sync], device: "a1") else {
            Issue.record("the command past its allowance is told")
            return
        }
        let refused = try MessageCodec.decode(refusal).message
        #expect(refused == .error(ErrorReply(.rateLimited, "too many commands from a1; at most 1/s")))
    }

    @Test func pingsAreAllowedAsManyAsCommandsWhenThatIsMore() throws {
        // A slow refill, so that no token comes back while the loop runs on a busy machine.
        let gate = makeGate(try TestFamily.directory(), rate: 1, burst: 250)
        let ping = MessageCodec.encode(.ping, requestID: 7)
        for _ in 0..<250 { #expect(isAdmit(gate.admit([[5], ping], device: "a1"))) }
        #expect(!isAdmit(gate.admit([[5], ping], device: "a1")))
        #expect(isAdmit(gate.admit([[5], MessageCodec.encode(.sync(after: 0, limit: 1), requestID: 8)], device: "a1")))
    }

    @Test func onlyAWellFormedPingFrameCountsAsAPing() {
        #expect(Gate.isPing([[5], MessageCodec.encode(.ping, requestID: 1)]))
        #expect(!Gate.isPing([[5], MessageCodec.encode(.sync(after: 0, limit: 1), requestID: 1)]))
        #expect(!Gate.isPing([[5], [Wire.version]]), "too short to carry a type")
        #expect(!Gate.isPing([[5], [1, 2], MessageCodec.encode(.ping, requestID: 1)]), "several frames")
    }

    @Test func aCommandOfManyFramesIsHostile() throws {
        let gate = makeGate(try TestFamily.directory())
        let frame = MessageCodec.encode(.ping, requestID: 3)
        let many = [[9]] + Array(repeating: frame, count: Gate.maxCommandFrames + 1)
        guard case .hostile("e1", let reason) = gate.admit(many, device: "e1") else {
            Issue.record("a command of \(many.count - 1) frames is not hostile")
            return
        }
        #expect(reason == "a command of \(Gate.maxCommandFrames + 1) frames")
        let cut = [[9]] + Array(repeating: frame, count: Gate.maxCommandFrames)
        guard case .hostile = gate.admit(cut, discardedFrames: 506, device: "e1") else {
            Issue.record("frames freed unread count")
            return
        }
        guard case .answer = gate.admit(cut, device: "e1") else {
            Issue.record("a few frames get their typed error")
            return
        }
    }

    @Test func aCommandOfSeveralFramesGetsATypedError() throws {
        let gate = makeGate(try TestFamily.directory())
        let frame = MessageCodec.encode(.ping, requestID: 3)
        guard case .answer(let routing, let reply) = gate.admit([[9], [1, 2], frame], device: "e1") else {
            Issue.record("not answered")
            return
        }
        #expect(routing == [9])
        let envelope = try MessageCodec.decode(reply)
        #expect(envelope.requestID == 3, "addressed by the last frame's request id")
        #expect(envelope.message.errorCode == WireError.wrongFrameCount(expected: 1, got: 2).code)
    }
}
