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

    /// Pings a second per device, sustained, and saved up at most, when the command rate is lower.
    static let pingRate: Double = 4
    static let pingBurst: Double = 20

    init(directory: DirectoryBox, commandRate: Double, commandBurst: Double) {
        self.directory = directory
        commands = RateLimiter(rate: commandRate, burst: commandBurst)
        pings = RateLimiter(rate: max(Self.pingRate, commandRate), burst: max(Self.pingBurst, commandBurst))
        subscriptions = RateLimiter(rate: 1, burst: 20)
    }

    /// ZAP (RFC 27): the device a CURVE key is enrolled for, which becomes the connection's `User-Id`; nil refuses it.
    func authenticate(_ request: ZAPRequest) -> DeviceID? {
        guard request.mechanism == "CURVE", let key = request.curvePublicKeyZ85 else { return nil }
        return directory.current.deviceByKey[key]
    }

    /// The reply frames to a ZAP request, or to frames that are not one (a REP socket must answer to stay usable).
    func zapReply(_ frames: [[UInt8]], logger: Logger) -> [[UInt8]] {
        guard let request = try? ZAPRequest(frames: frames) else {
            return [Array("1.0".utf8), [], Array("400".utf8), Array("malformed".utf8), [], []]
        }
        let device = authenticate(request)
        if device == nil {
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
    }

    /// XPUB_MANUAL: what a subscription message from `device` earns.
    func grant(_ frame: [UInt8], device: DeviceID?) -> Grant {
        guard frame.first == 1, let device, let member = directory.current.member(ofDevice: device) else {
            return .nothing
        }
        guard subscriptions.admit(device) == .admit else { return .flood }
        return .topic(member.id)
    }

    /// What happens to one message read from the ingress socket.
    enum Admission: Sendable {
        /// It goes to the engine.
        case admit(CommandIntake.Inbound)
        /// It is answered at once with this frame, to this routing id.
        case answer(routingID: [UInt8], frame: [UInt8])
        /// Nothing goes back: a revoked key, or a flood already told.
        case drop
    }

    /// Admission of one ingress message: an enrolled device (a key revoked since its connection was made gets
    /// nothing more), within its rate (the first refusal is told, then silence while it floods), one frame.
    func admit(_ frames: [[UInt8]], device: DeviceID?) -> Admission {
        guard let device, directory.current.devices[device] != nil, let routing = frames.first else { return .drop }
        let ping = Self.isPing(frames)
        let limiter = ping ? pings : commands
        switch limiter.admit(device) {
        case .admit:
            break
        case .refuse:
            guard frames.count == 2 else { return .drop }
            let what = ping ? "pings" : "commands"
            let error = ErrorReply(.rateLimited, "too many \(what) from \(device); at most \(Int(limiter.rate))/s")
            return .answer(routingID: routing, frame: BrokerFrames.error(error, answering: frames[1]))
        case .drop:
            return .drop
        }
        guard frames.count == 2 else {
            let last = frames[frames.count - 1]
            let error = WireError.wrongFrameCount(expected: 1, got: frames.count - 1)
            return .answer(
                routingID: routing,
                frame: BrokerFrames.error(ErrorReply(error.code, error.description), answering: last))
        }
        return .admit(.init(routingID: routing, deviceID: device, frame: frames[1]))
    }

    /// Whether `frames` are one `ping` frame: its type byte, without decoding (the engine decodes what is admitted).
    static func isPing(_ frames: [[UInt8]]) -> Bool {
        frames.count == 2 && frames[1].count > 1 && frames[1][1] == MessageType.ping.rawValue
    }
}
