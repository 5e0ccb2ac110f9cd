import Foundation
public import ZeroMQ

/// Where the simulated devices connect, and which protocol they speak there.
public struct LoadTarget: Sendable {
    /// What listens at the endpoints.
    public enum Kind: String, Sendable, Codable {
        /// `family-broker`: the Hearth protocol, CURVE + ZAP, XPUB_MANUAL.
        case broker
        /// `RawRelay`: ROUTER in, PUB out, no storage; frames are forwarded, not decoded.
        case relay
    }

    public var kind: Kind
    public var ingress: String
    public var egress: String
    /// The server's Z85 CURVE public key.
    public var serverKey: String
    /// The server's process, for CPU and memory figures.
    public var pid: Int32
    /// The ready file this target was read from, if any.
    public var readyFile: String?

    public init(kind: Kind, ingress: String, egress: String, serverKey: String, pid: Int32, readyFile: String? = nil) {
        self.readyFile = readyFile
        self.kind = kind
        self.ingress = ingress
        self.egress = egress
        self.serverKey = serverKey
        self.pid = pid
    }

    /// Reads a ready file in the broker's format (`ingress`, `egress`, `publicKey`, `pid`); the relay writes the same.
    public static func fromReadyFile(_ path: String, kind: Kind) throws -> LoadTarget {
        struct Ready: Decodable {
            var ingress: String
            var egress: String
            var publicKey: String
            var pid: Int32
        }
        let ready = try JSONDecoder().decode(Ready.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        return LoadTarget(
            kind: kind, ingress: ready.ingress, egress: ready.egress, serverKey: ready.publicKey, pid: ready.pid,
            readyFile: path)
    }
}

/// How load is offered.
public struct LoadPlan: Sendable, Codable {
    /// Open loop at a target rate, or closed loop with a fixed number of cycles in flight.
    public enum Mode: Sendable, Codable, Equatable {
        case open(cyclesPerSecond: Double)
        case closed(inFlight: Int)
        /// Connect, authenticate and subscribe, then hold the connections until told to stop.
        case connectOnly
    }

    public var mode: Mode
    public var warmup: Duration
    public var duration: Duration
    /// How long a parent waits before approving.
    public var thinkTime: Duration
    /// After the measured window, how long to wait for cycles still in flight before counting them lost.
    public var drainTimeout: Duration
    /// How long devices have to connect and be welcomed.
    public var connectTimeout: Duration
    /// Question ids spread over the id space, as apps' random UUIDs are, instead of ascending (`QuestionTag`).
    public var randomIDs = false

    public init(
        mode: Mode, warmup: Duration = .seconds(2), duration: Duration = .seconds(10), thinkTime: Duration = .zero,
        drainTimeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(60), randomIDs: Bool = false
    ) {
        self.mode = mode
        self.warmup = warmup
        self.duration = duration
        self.thinkTime = thinkTime
        self.drainTimeout = drainTimeout
        self.connectTimeout = connectTimeout
        self.randomIDs = randomIDs
    }
}

/// One simulated device: its member, role and key.
public struct SimulatedDevice: Sendable {
    public var member: String
    public var device: String
    public var isChild: Bool
    public var keys: CurveKeyPair

    public init(member: String, device: String, isChild: Bool, keys: CurveKeyPair) {
        self.member = member
        self.device = device
        self.isChild = isChild
        self.keys = keys
    }
}

/// A family's devices, children first or not: the shard keeps the indexes.
public struct SimulatedFamily: Sendable {
    public var children: [SimulatedDevice]
    public var parents: [SimulatedDevice]

    public init(children: [SimulatedDevice], parents: [SimulatedDevice]) {
        self.children = children
        self.parents = parents
    }

    /// The families of `shape` numbered `range`, with keys from `key(deviceID)`.
    public static func make(
        _ shape: LoadShape, families range: Range<Int>, key: (String) throws -> CurveKeyPair
    ) rethrows -> [SimulatedFamily] {
        try range.map { f in
            SimulatedFamily(
                children: try (0..<shape.children).map { k in
                    let member = LoadShape.child(f, k)
                    let device = LoadShape.device(of: member)
                    return SimulatedDevice(member: member, device: device, isChild: true, keys: try key(device))
                },
                parents: try (0..<shape.parents).map { k in
                    let member = LoadShape.parent(f, k)
                    let device = LoadShape.device(of: member)
                    return SimulatedDevice(member: member, device: device, isChild: false, keys: try key(device))
                })
        }
    }
}
