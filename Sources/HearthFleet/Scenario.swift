import Foundation
public import HearthCore
import Yams

/// A fleet test written in YAML for people who do not write Swift: families, then steps (asks, answers, faults,
/// expectations). `hearth-fleet run FILE` runs one with `ScenarioRunner`; docs/FLEET.md describes the format.
public struct Scenario: Sendable, Decodable {
    public var name: String
    /// `processes` (the default) or `inProcess`.
    public var mode: Fleet.Mode?
    /// How long an expectation waits unless it says `within:` (default 10s).
    public var timeout: ScenarioDuration?
    public var families: [Family]
    /// Members in no family.
    public var unaffiliated: [Member]?
    /// How many brokers share the families (default 1); more than one runs them on a PostgreSQL server of the
    /// fleet's own, and fault steps name them `broker 1`, `broker 2`…
    public var brokers: Int?
    public var steps: [Step]

    public struct Family: Sendable, Decodable {
        public var id: FamilyID
        public var members: [Member]
    }

    public struct Member: Sendable, Decodable {
        public var id: MemberID
        /// organizer, guardian, adult or child.
        public var role: String
        public var devices: [DeviceID]
        public var birthDate: String?
        public var region: String?
        public var communicationLimits: Bool?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(
                ["id", "role", "devices", "birthDate", "region", "communicationLimits"], in: decoder, what: "a member")
            let c = try decoder.container(keyedBy: Key.self)
            id = try c.decode(String.self, forKey: Key("id"))
            role = try c.decode(String.self, forKey: Key("role"))
            devices = try c.decodeIfPresent([String].self, forKey: Key("devices")) ?? []
            birthDate = try c.decodeIfPresent(String.self, forKey: Key("birthDate"))
            region = try c.decodeIfPresent(String.self, forKey: Key("region"))
            communicationLimits = try c.decodeIfPresent(Bool.self, forKey: Key("communicationLimits"))
        }
    }

    public init(from decoder: any Decoder) throws {
        try Self.allowOnly(
            ["name", "mode", "timeout", "families", "unaffiliated", "brokers", "steps"], in: decoder, what: "a scenario"
        )
        let c = try decoder.container(keyedBy: Key.self)
        name = try c.decode(String.self, forKey: Key("name"))
        if let mode = try c.decodeIfPresent(String.self, forKey: Key("mode")) {
            guard let parsed = Fleet.Mode(rawValue: mode) else {
                throw ScenarioError("mode: '\(mode)' is not processes or inProcess")
            }
            self.mode = parsed
        }
        timeout = try c.decodeIfPresent(ScenarioDuration.self, forKey: Key("timeout"))
        families = try c.decodeIfPresent([Family].self, forKey: Key("families")) ?? []
        unaffiliated = try c.decodeIfPresent([Member].self, forKey: Key("unaffiliated"))
        brokers = try c.decodeIfPresent(Int.self, forKey: Key("brokers"))
        if let brokers, !(1...16).contains(brokers) {
            throw ScenarioError("brokers: \(brokers) is not from 1 to 16")
        }
        steps = try c.decode([Step].self, forKey: Key("steps"))
    }

    /// Parses a scenario and checks that every step names a declared device and an asked question.
    public init(yaml: String) throws {
        do {
            self = try YAMLDecoder().decode(Scenario.self, from: yaml)
        } catch let error as ScenarioError {
            throw error
        } catch let DecodingError.dataCorrupted(context) where context.underlyingError is ScenarioError {
            // Yams wraps what a type's own init(from:) throws.
            throw context.underlyingError!
        } catch let DecodingError.dataCorrupted(context) where context.underlyingError is YamlError {
            throw ScenarioError(syntax: context.underlyingError as! YamlError)
        } catch let error as YamlError {
            throw ScenarioError(syntax: error)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ScenarioError("\(Self.path(context.codingPath + [key])): missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context), let
            DecodingError.dataCorrupted(context)
        {
            throw ScenarioError("\(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw ScenarioError("not a scenario: \(error)")
        }
        try validate()
    }

    /// Reads and parses a scenario file.
    public static func load(path: String) throws -> Scenario {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ScenarioError("\(path): cannot read the file: \(ScenarioError.reason(reading: path))")
        }
        do {
            return try Scenario(yaml: text)
        } catch let error as ScenarioError {
            throw ScenarioError("\(path): \(error.message)")
        }
    }

    /// The families as a `FleetSpec`.
    public func fleetSpec() throws -> FleetSpec {
        func member(_ m: Member) throws -> FleetSpec.Member {
            guard let role = MemberRole(name: m.role) else {
                throw ScenarioError("member \(m.id): role '\(m.role)' is not organizer, guardian, adult or child")
            }
            return FleetSpec.Member(
                m.id, role: role, birthDate: m.birthDate, region: m.region ?? "US",
                communicationLimits: m.communicationLimits ?? true,
                devices: m.devices)
        }
        return FleetSpec(
            families: try families.map { FleetSpec.Family($0.id, members: try $0.members.map(member)) },
            unaffiliated: try (unaffiliated ?? []).map(member), store: (brokers ?? 1) > 1 ? .postgres : .sqlite,
            brokers: brokers ?? 1)
    }

    /// Each device's role, from the families.
    func roles() throws -> [DeviceID: MemberRole] {
        var roles: [DeviceID: MemberRole] = [:]
        for family in try fleetSpec().families {
            for member in family.members { for device in member.devices { roles[device] = member.role } }
        }
        for member in try fleetSpec().unaffiliated { for device in member.devices { roles[device] = member.role } }
        return roles
    }

    private func validate() throws {
        let roles = try roles()
        var asked: Set<String> = []
        var requested: Set<String> = []
        for (index, step) in steps.enumerated() {
            func fail(_ why: String) -> ScenarioError { ScenarioError("step \(index + 1) (\(step.summary)): \(why)") }
            func device(_ id: String, child: Bool? = nil) throws {
                guard let role = roles[id] else { throw fail("no device '\(id)' in the families") }
                if child == true, role != .child { throw fail("'\(id)' is not a child's device") }
                if child == false, role == .child { throw fail("'\(id)' is a child's device, not a parent's") }
            }
            func question(_ name: String) throws {
                guard asked.contains(name) else { throw fail("no question '\(name)' was asked before this step") }
            }
            try checkSubject(of: step, fail: fail)
            try checkHandles(of: step, fail: fail)
            switch step {
            case .ask(let ask):
                try device(ask.on, child: true)
                guard !ask.handles.isEmpty else { throw fail("an ask names at least one handle") }
                guard asked.insert(ask.name).inserted else { throw fail("question '\(ask.name)' is asked twice") }
            case .approve(let answer), .decline(let answer):
                try device(answer.on, child: false)
                try question(answer.question)
            case .limits(let limits):
                try device(limits.on, child: false)
            case .revoke(let revoke):
                try device(revoke.on, child: false)
                guard !revoke.handles.isEmpty else { throw fail("a revoke names at least one handle") }
            case .expect(let expectation):
                switch expectation.check {
                case .pending(let name, _), .notified(let name):
                    try device(expectation.on, child: false)
                    try question(name)
                case .response(let name):
                    try device(expectation.on, child: true)
                    try question(name)
                case .known, .unknown:
                    try device(expectation.on, child: true)
                case .linked:
                    try device(expectation.on)
                case .history:
                    try device(expectation.on, child: false)
                    if let name = expectation.question { try question(name) }
                case .ageResponse:
                    try device(expectation.on)
                    try Self.validate(step, device: device, question: question, requested: &requested, fail: fail)
                }
            case .fault(let fault, let target):
                if target == Self.broker {
                    guard (brokers ?? 1) == 1 else {
                        throw fail("name one of the brokers: broker 1 to broker \(brokers!)")
                    }
                    guard [.crash, .restart, .stop, .start].contains(fault) else {
                        throw fail("the broker can crash, restart, stop or start")
                    }
                } else if let number = Self.brokerNumber(target) {
                    guard (1...(brokers ?? 1)).contains(number), (brokers ?? 1) > 1 else {
                        throw fail("no \(target): the scenario has \(brokers ?? 1) broker(s); one is named 'broker'")
                    }
                } else {
                    try device(target)
                }
            case .advanceClock, .wait:
                break
            case .contacts, .passcode, .approveInPerson, .withdraw, .ageSharing, .ageRequest, .agePrompt:
                try Self.validate(step, device: device, question: question, requested: &requested, fail: fail)
            }
        }
    }

    /// The name that stands for the broker in fault steps.
    public static let broker = "broker"

    /// N of a fault target `broker N` (a scenario of several brokers); nil for any other target.
    static func brokerNumber(_ target: String) -> Int? {
        let words = target.split(separator: " ")
        guard words.count == 2, words[0] == "broker" else { return nil }
        return Int(words[1])
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Refuses keys a mapping does not know, so a typo is an error rather than a silently ignored line.
    static func allowOnly(_ keys: Set<String>, in decoder: any Decoder, what: String) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let unknown = container.allKeys.map(\.stringValue).filter { !keys.contains($0) }
        guard unknown.isEmpty else {
            throw ScenarioError(
                "\(path(decoder.codingPath)): \(what) has no '\(unknown.sorted().joined(separator: "', '"))'; it takes \(keys.sorted().joined(separator: ", "))"
            )
        }
    }

    /// Where a value sits, as people count: `step 3, ask.expiresIn` (steps from 1, as the report numbers them).
    static func path(_ keys: [any CodingKey]) -> String {
        var parts: [String] = []
        var inner = ""
        for (position, key) in keys.enumerated() {
            if let index = key.intValue, position > 0, keys[position - 1].stringValue == "steps", position == 1 {
                parts = ["step \(index + 1)"]
            } else if position == 0, key.stringValue == "steps", keys.count > 1 {
                continue
            } else if let index = key.intValue {
                inner += "[\(index)]"
            } else {
                inner += (inner.isEmpty ? "" : ".") + key.stringValue
            }
        }
        if !inner.isEmpty { parts.append(inner) }
        return parts.isEmpty ? "the file" : parts.joined(separator: ", ")
    }
}
