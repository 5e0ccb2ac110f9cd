import Foundation
public import HearthCore

extension Scenario {
    /// `contacts: {child: emma, on: alice-phone, add: [pal], addDowntime: ["phone:+15550100"], remove: [old]}`
    public struct Contacts: Sendable, Decodable {
        public var child: MemberID
        /// The parent's device.
        public var on: DeviceID
        public var add: [String]
        /// Contacts reachable during downtime when downtime is `specificContacts`.
        public var addDowntime: [String]
        public var remove: [String]
        /// The change is expected to be refused with this error code.
        public var error: String?

        public init(from decoder: any Decoder) throws {
            let keys: Set = ["child", "on", "add", "addDowntime", "remove", "error"]
            try Scenario.allowOnly(keys, in: decoder, what: "a contacts step")
            let c = try decoder.container(keyedBy: Key.self)
            child = try c.decode(String.self, forKey: Key("child"))
            on = try c.decode(String.self, forKey: Key("on"))
            add = try c.decodeIfPresent([String].self, forKey: Key("add")) ?? []
            addDowntime = try c.decodeIfPresent([String].self, forKey: Key("addDowntime")) ?? []
            remove = try c.decodeIfPresent([String].self, forKey: Key("remove")) ?? []
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
            guard !(add + addDowntime + remove).isEmpty else {
                throw ScenarioError("\(Scenario.path(decoder.codingPath)): a contacts step adds or removes a handle")
            }
        }
    }

    /// `passcode: {child: emma, on: alice-phone, set: "2468"}`, or `clear: true` to remove it.
    public struct Passcode: Sendable, Decodable {
        public var child: MemberID
        /// The parent's device.
        public var on: DeviceID
        /// The new passcode; empty removes it.
        public var passcode: String
        public var error: String?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(["child", "on", "set", "clear", "error"], in: decoder, what: "a passcode step")
            let c = try decoder.container(keyedBy: Key.self)
            child = try c.decode(String.self, forKey: Key("child"))
            on = try c.decode(String.self, forKey: Key("on"))
            let set = try c.decodeIfPresent(String.self, forKey: Key("set"))
            let clear = try c.decodeIfPresent(Bool.self, forKey: Key("clear")) ?? false
            guard (set != nil) != clear else {
                throw ScenarioError(
                    "\(Scenario.path(decoder.codingPath)): a passcode step has either set or clear: true")
            }
            passcode = set ?? ""
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }

    /// `approveInPerson: {question: q1, on: emma-tablet, passcode: "2468", error: wrongPasscode}`: a parent types the
    /// passcode at the child's device.
    public struct InPerson: Sendable, Decodable {
        public var question: String
        /// The child's device.
        public var on: DeviceID
        public var passcode: String
        public var error: String?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(["question", "on", "passcode", "error"], in: decoder, what: "an approveInPerson")
            let c = try decoder.container(keyedBy: Key.self)
            question = try c.decode(String.self, forKey: Key("question"))
            on = try c.decode(String.self, forKey: Key("on"))
            passcode = try c.decode(String.self, forKey: Key("passcode"))
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }

    /// `withdraw: {question: q1, on: emma-tablet, app: com.example.chat, error: alreadyAnswered}`: the app takes
    /// back a question it asked.
    public struct Withdraw: Sendable, Decodable {
        public var question: String
        /// The child's device.
        public var on: DeviceID
        public var app: String
        /// The withdrawal is expected to fail with an error whose description contains this text.
        public var error: String?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(["question", "on", "app", "error"], in: decoder, what: "a withdraw")
            let c = try decoder.container(keyedBy: Key.self)
            question = try c.decode(String.self, forKey: Key("question"))
            on = try c.decode(String.self, forKey: Key("on"))
            app = try c.decodeIfPresent(String.self, forKey: Key("app")) ?? "com.example.chat"
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }

    /// `ageSharing: {member: emma, on: alice-phone, setting: always}`: Always Share, Ask First (`ask`) or Never Share.
    public struct AgeSharingStep: Sendable, Decodable {
        public var member: MemberID
        /// The device of whoever sets it: a parent's for a child, an adult's own.
        public var on: DeviceID
        public var setting: AgeSharing
        public var error: String?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(["member", "on", "setting", "error"], in: decoder, what: "an ageSharing step")
            let c = try decoder.container(keyedBy: Key.self)
            member = try c.decode(String.self, forKey: Key("member"))
            on = try c.decode(String.self, forKey: Key("on"))
            let name = try c.decode(String.self, forKey: Key("setting"))
            guard let setting = AgeSharing(name: name) else {
                throw ScenarioError(
                    "\(Scenario.path(decoder.codingPath)): setting '\(name)' is not always, ask or never")
            }
            self.setting = setting
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }

    /// `ageRequest: {on: emma-tablet, as: r1, app: com.example.app, gates: [13, 16]}`: an app asks for the user's age
    /// range; the step does not wait for the answer (Ask First waits for a prompt): `expect: {ageResponse: r1}` does.
    public struct AgeRequest: Sendable, Decodable {
        public var on: DeviceID
        /// The name later steps use for this request.
        public var name: String
        public var app: String
        public var gates: [Int]

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(["on", "as", "app", "gates"], in: decoder, what: "an ageRequest")
            let c = try decoder.container(keyedBy: Key.self)
            on = try c.decode(String.self, forKey: Key("on"))
            name = try c.decode(String.self, forKey: Key("as"))
            app = try c.decodeIfPresent(String.self, forKey: Key("app")) ?? "com.example.app"
            gates = try c.decode([Int].self, forKey: Key("gates"))
            guard (1...3).contains(gates.count) else {
                throw ScenarioError("\(Scenario.path(decoder.codingPath)): an ageRequest names 1 to 3 gates")
            }
        }
    }

    /// `agePrompt: {app: com.example.app, on: emma-phone, share: true}`: the person at that device answers the Ask
    /// First prompt of the app (waiting for it to be shown).
    public struct AgePromptAnswer: Sendable, Decodable {
        public var app: String
        public var on: DeviceID
        public var share: Bool
        public var error: String?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(["app", "on", "share", "error"], in: decoder, what: "an agePrompt")
            let c = try decoder.container(keyedBy: Key.self)
            app = try c.decodeIfPresent(String.self, forKey: Key("app")) ?? "com.example.app"
            on = try c.decode(String.self, forKey: Key("on"))
            share = try c.decode(Bool.self, forKey: Key("share"))
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }
}

extension Scenario.Step {
    /// The summary of the steps of this file.
    var familySummary: String {
        func expecting(_ error: String?) -> String { error.map { ", expecting \($0)" } ?? "" }
        switch self {
        case .contacts(let step):
            let changes =
                step.add.map { "+\($0)" } + step.addDowntime.map { "+\($0) (downtime)" } + step.remove.map { "-\($0)" }
            return "contacts of \(step.child) on \(step.on): \(changes.joined(separator: ", "))" + expecting(step.error)
        case .passcode(let step):
            return (step.passcode.isEmpty ? "clear" : "set") + " the passcode of \(step.child) on \(step.on)"
                + expecting(step.error)
        case .approveInPerson(let step):
            return "approve \(step.question) in person on \(step.on)" + expecting(step.error)
        case .withdraw(let step):
            return "withdraw \(step.question) on \(step.on) (\(step.app))" + expecting(step.error)
        case .ageSharing(let step):
            return "age sharing of \(step.member) set to \(step.setting.name) on \(step.on)" + expecting(step.error)
        case .ageRequest(let step):
            return "age range request \(step.name) on \(step.on) (\(step.app)): gates "
                + step.gates.map(String.init).joined(separator: ", ")
        case .agePrompt(let step):
            return (step.share ? "share" : "decline") + " the age prompt of \(step.app) on \(step.on)"
                + expecting(step.error)
        default:
            return ""
        }
    }
}

extension Scenario {
    /// Checks the steps of this file against the families: `device` checks a device (`child` true for a child's,
    /// false for a parent's), `question` a question asked before, `request` an age range request made before.
    static func validate(
        _ step: Step, device: (String, Bool?) throws -> Void, question: (String) throws -> Void,
        requested: inout Set<String>, fail: (String) -> ScenarioError
    ) throws {
        switch step {
        case .contacts(let step): try device(step.on, false)
        case .passcode(let step): try device(step.on, false)
        case .approveInPerson(let step):
            try device(step.on, true)
            try question(step.question)
        case .withdraw(let step):
            try device(step.on, true)
            try question(step.question)
        case .ageSharing(let step): try device(step.on, nil)
        case .ageRequest(let step):
            try device(step.on, nil)
            guard requested.insert(step.name).inserted else { throw fail("age request '\(step.name)' is made twice") }
        case .agePrompt(let step): try device(step.on, nil)
        case .expect(let expectation):
            guard case .ageResponse(let name) = expectation.check else { return }
            guard requested.contains(name) else { throw fail("no age request '\(name)' was made before this step") }
            guard expectation.answer == nil || ["declined", "sharing"].contains(expectation.answer!) else {
                throw fail("an age range answer is declined or sharing")
            }
        default:
            return
        }
    }
}
