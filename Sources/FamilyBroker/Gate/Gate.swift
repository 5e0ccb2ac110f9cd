import BrokerCore
import HearthCore
import HearthProtocol
import Logging
import ZeroMQ

/// Who gets in, and what reaches the engine: ZAP authentication, subscription grants, admission and per-device rate
/// limits. Plain functions over the current `Directory` and the limiters' buckets; the sockets only carry out what
/// they decide, so every rule is tested without a socket.
struct Gate: Sendable {
    let directory: DirectoryBox
    /// Commands per device.
    let commands: RateLimiter
    /// Pings per device, apart from its commands: a linked device pings every second, and at a low `--device-rate`
    /// those pings took the tokens its asks needed. As many as commands, and never fewer than `pingRate`.
    let pings: RateLimiter
    /// Subscriptions per device: each grant is one topic whatever was asked, so more than a few is a loop.
    let subscriptions: RateLimiter
    /// Devices cut off for a while for hostile messages: ZAP refuses them, their connections are dropped.
    let cutOff: CutOffBook

    /// Pings a second per device, sustained, and saved up at most, when the command rate is lower.
    static let pingRate: Double = 4
    static let pingBurst: Double = 20

    /// Frames a command may come in beyond the one the protocol allows and still be answered (`wrongFrameCount`);
    /// a message of more is hostile. libzmq holds every frame of a message before the broker reads any, so one
    /// message of many frames is as large as its sender makes it: the sender is cut off before it sends another.
    static let maxCommandFrames = 8

    /// The longest subscription a device has reason to send: the subscribe byte and the longest member topic.
    static let longestSubscription = 1 + Identifier.maxLength + 1

    /// How long a hostile device stays cut off by default.
    static let defaultCutOff: Duration = .seconds(600)

    init(directory: DirectoryBox, commandRate: Double, commandBurst: Double, cutOff: Duration = Gate.defaultCutOff) {
        self.directory = directory
        self.cutOff = CutOffBook(duration: cutOff)
        commands = RateLimiter(rate: commandRate, burst: commandBurst)
        pings = RateLimiter(rate: max(Self.pingRate, commandRate), burst: max(Self.pingBurst, commandBurst))
        subscriptions = RateLimiter(rate: 1, burst: 20)
    }

    /// ZAP (RFC 27): the device a CURVE key is enrolled for, which becomes the connection's `User-Id`; nil refuses it.
    func authenticate(_ request: ZAPRequest) -> DeviceID? {
        guard request.mechanism == "CURVE", let key = request.curvePublicKeyZ85,
            let device = directory.current.deviceByKey[key], !cutOff.contains(device)
        else { return nil }
        return device
    }

    /// The reply frames to a ZAP request, or to frames that are not one (a REP socket must answer to stay usable).
    func zapReply(_ frames: [[UInt8]], logger: Logger) -> [[UInt8]] {
        guard let request = try? ZAPRequest(frames: frames) else {
            return [Array("1.0".utf8), [], Array("400".utf8), Array("malformed".utf8), [], []]
        }
        let device = authenticate(request)
        if device == nil, let key = request.curvePublicKeyZ85, let known = directory.current.deviceByKey[key] {
            // It keeps reconnecting while cut off: the cut-off itself was logged.
            logger.debug("refused a key cut off for a while", metadata: ["device": "\(known)"])
            return request.reply(allowed: false, userId: "", statusText: "key cut off for a while")
        } else if device == nil {
            logger.notice(
                "refused an unknown key",
                metadata: ["address": "\(request.address)", "mechanism": "\(request.mechanism)"])
        }
        return request.reply(
            allowed: device != nil, userId: device ?? "", statusText: device == nil ? "key not enrolled" : "OK")
    }

    /// What a subscription message earns.
    enum Grant: Sendable, Equatable {
        /// This member's topic: whatever a device asks to subscribe to, it gets exactly its own member's.
        case topic(MemberID)
        /// Nothing: an unsubscription, or no enrolled device behind it.
        case nothing
        /// Nothing: the device re-subscribes in a loop, past its allowance.
        case flood
        /// Hostile: what no device sends (a message of several frames, one that is no subscription, a prefix other
        /// than everything or the member's own topic): the device is cut off, for the reason given.
        case hostile(String)
        /// Nothing, and the connection drops: the device is cut off.
        case cutOff
    }

    /// XPUB_MANUAL: what a message on the event socket from `device` earns; `extraFrames` is how many frames came
    /// with it. A device's SUB asks for everything (`""`) or its own topic: libzmq keeps every prefix it is asked
    /// for until the connection ends, so any other is refused and its sender dropped.
    func grant(_ frame: [UInt8], extraFrames: Int = 0, device: DeviceID?) -> Grant {
        guard let device, let member = directory.current.member(ofDevice: device) else { return .nothing }
        if cutOff.contains(device) { return .cutOff }
        guard extraFrames == 0 else { return .hostile("a subscription of \(extraFrames + 1) frames") }
        guard frame.count <= Self.longestSubscription else {
            return .hostile("a subscription of \(frame.count) bytes, longer than any topic")
        }
        guard let kind = frame.first, kind <= 1 else { return .hostile("a message that is no subscription") }
        guard frame.count == 1 || frame.dropFirst().elementsEqual(Wire.topic(for: member.id)) else {
            return .hostile("a subscription to a topic not its member's")
        }
        guard kind == 1 else { return .nothing }
        guard subscriptions.admit(device) == .admit else { return .flood }
        return .topic(member.id)
    }

    /// What happens to one message read from the ingress socket.
    enum Admission: Sendable {
        /// It goes to the engine.
        case admit(AdmittedCommand)
        /// It is answered at once with this frame, to this routing id.
        case answer(routingID: [UInt8], frame: [UInt8])
        /// Nothing goes back: a revoked key, or a flood already told.
        case drop
        /// Hostile (a command of more frames than `maxCommandFrames`): the device is cut off, for the reason given.
        case hostile(DeviceID, String)
        /// Nothing goes back and the connection drops: the device is cut off.
        case disconnect
    }

    /// Admission of one ingress message: an enrolled device (a key revoked since its connection was made gets
    /// nothing more) not cut off, a message of a few frames at most (`discardedFrames`: those read past the socket
    /// loop's limit), within its rate (the first refusal is told, then silence while it floods), one frame.
    func admit(_ frames: [[UInt8]], discardedFrames: Int = 0, device: DeviceID?) -> Admission {
        guard let device, directory.current.devices[device] != nil, let routing = frames.first else { return .drop }
        if cutOff.contains(device) { return .disconnect }
        let count = frames.count - 1 + discardedFrames
        guard count <= Self.maxCommandFrames else { return .hostile(device, "a command of \(count) frames") }
        let ping = Self.isPing(frames)
        let limiter = ping ? pings : commands
        switch limiter.admit(device) {
        case .admit:
            break
        case .refuse:
            guard frames.count == 2 else { return .drop }
            let what = ping ? "pings" : "commands"
            let error = ErrorReply(.rateLimited, "too many \(what) from \(device); at most \(Int(limiter.rate))/s")
            return .answer(routingID: routing, frame: Self.error(error, answering: frames[1]))
        case .drop:
            return .drop
        }
        guard frames.count == 2 else {
            let last = frames[frames.count - 1]
            let error = WireError.wrongFrameCount(expected: 1, got: frames.count - 1)
            return .answer(
                routingID: routing,
                frame: Self.error(ErrorReply(error.code, error.description), answering: last))
        }
        return .admit(.init(routingID: routing, deviceID: device, frame: frames[1]))
    }

    /// An error reply to a frame the engine never saw, addressed by the request id in its header if intact.
    private static func error(_ error: ErrorReply, answering frame: [UInt8]) -> [UInt8] {
        MessageCodec.encode(.error(error), requestID: MessageCodec.peekRequestID(frame))
    }

    /// Whether `frames` are one `ping` frame: its type byte, without decoding (the engine decodes what is admitted).
    static func isPing(_ frames: [[UInt8]]) -> Bool {
        frames.count == 2 && frames[1].count > 1 && frames[1][1] == MessageType.ping.rawValue
    }
}
