import Foundation
public import HearthCore

extension Scenario {
    /// One line of a scenario's `steps`: a mapping with exactly one key naming what to do.
    public enum Step: Sendable, Decodable {
        case ask(Ask)
        case approve(Answer)
        case decline(Answer)
        /// A parent takes back approvals of handles for a child.
        case revoke(Revoke)
        /// A parent changes a child's Communication Limits.
        case limits(Limits)
        /// A parent adds or removes a child's contacts.
        case contacts(Contacts)
        /// A parent sets or clears a child's Screen Time passcode.
        case passcode(Passcode)
        /// A parent approves a question at the child's device with the passcode.
        case approveInPerson(InPerson)
        /// The asking app withdraws a pending question.
        case withdraw(Withdraw)
        /// A parent sets a child's (or an adult their own) Declared Age Range sharing.
        case ageSharing(AgeSharingStep)
        /// An app asks for the user's age range; `expect: {ageResponse: ...}` waits for the answer.
        case ageRequest(AgeRequest)
        /// The person at a device answers an Ask First prompt.
        case agePrompt(AgePromptAnswer)
        case expect(Expectation)
        /// `crash`, `restart`, `stop`, `start`, `pause`, `resume`, `cut` or `restore`, of a device or `broker`.
        case fault(Fault, String)
        case advanceClock(ScenarioDuration)
        case wait(ScenarioDuration)

        static let kinds =
            [
                "ask", "approve", "decline", "revoke", "limits", "contacts", "passcode", "approveInPerson", "withdraw",
                "ageSharing", "ageRequest", "agePrompt", "expect", "advanceClock", "wait",
            ]
            + Fault.allCases.map(\.rawValue)

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            guard c.allKeys.count == 1, let key = c.allKeys.first else {
                throw ScenarioError(
                    "\(Scenario.path(decoder.codingPath)): a step has exactly one of \(Self.kinds.joined(separator: ", ")); got \(c.allKeys.map(\.stringValue))"
                )
            }
            switch key.stringValue {
            case "ask": self = .ask(try c.decode(Ask.self, forKey: key))
            case "approve": self = .approve(try c.decode(Answer.self, forKey: key))
            case "decline": self = .decline(try c.decode(Answer.self, forKey: key))
            case "revoke": self = .revoke(try c.decode(Revoke.self, forKey: key))
            case "limits": self = .limits(try c.decode(Limits.self, forKey: key))
            case "contacts": self = .contacts(try c.decode(Contacts.self, forKey: key))
            case "passcode": self = .passcode(try c.decode(Passcode.self, forKey: key))
            case "approveInPerson": self = .approveInPerson(try c.decode(InPerson.self, forKey: key))
            case "withdraw": self = .withdraw(try c.decode(Withdraw.self, forKey: key))
            case "ageSharing": self = .ageSharing(try c.decode(AgeSharingStep.self, forKey: key))
            case "ageRequest": self = .ageRequest(try c.decode(AgeRequest.self, forKey: key))
            case "agePrompt": self = .agePrompt(try c.decode(AgePromptAnswer.self, forKey: key))
            case "expect": self = .expect(try c.decode(Expectation.self, forKey: key))
            case "advanceClock": self = .advanceClock(try c.decode(ScenarioDuration.self, forKey: key))
            case "wait": self = .wait(try c.decode(ScenarioDuration.self, forKey: key))
            default:
                guard let fault = Fault(rawValue: key.stringValue) else {
                    throw ScenarioError(
                        "\(Scenario.path(decoder.codingPath)): '\(key.stringValue)' is not a step; steps are \(Self.kinds.joined(separator: ", "))"
                    )
                }
                self = .fault(fault, try c.decode(String.self, forKey: key))
            }
        }

        /// The step in a few words, for the report.
        public var summary: String {
            switch self {
            case .ask(let ask):
                "ask \(ask.name) on \(ask.on) (\(ask.app)): \(ask.handles.joined(separator: ", "))"
                    + (ask.expiresIn.map { ", expires in \($0)" } ?? "") + (ask.error.map { ", expecting \($0)" } ?? "")
            case .approve(let answer):
                "approve \(answer.question) on \(answer.on)" + (answer.error.map { ", expecting \($0)" } ?? "")
            case .decline(let answer):
                "decline \(answer.question) on \(answer.on)" + (answer.error.map { ", expecting \($0)" } ?? "")
            case .revoke(let revoke):
                "revoke \(revoke.handles.joined(separator: ", ")) for \(revoke.child) on \(revoke.on)"
                    + (revoke.error.map { ", expecting \($0)" } ?? "")
            case .limits(let limits):
                "set limits of \(limits.child) on \(limits.on)" + (limits.error.map { ", expecting \($0)" } ?? "")
            case .contacts, .passcode, .approveInPerson, .withdraw, .ageSharing, .ageRequest, .agePrompt:
                familySummary
            case .expect(let expectation): "expect \(expectation.summary)"
            case .fault(let fault, let target): "\(fault.rawValue) \(target)"
            case .advanceClock(let by): "advance the broker's clock by \(by)"
            case .wait(let time): "wait \(time)"
            }
        }
    }

    /// What a step can do to a daemon. For a device, `crash` is SIGKILL and `stop` SIGTERM (it stays down until
    /// `start`), `restart` stops and starts it and waits until it is linked; `cut` and `restore` its network.
    public enum Fault: String, Sendable, CaseIterable {
        case crash, restart, stop, start, pause, resume, cut, restore
    }

    /// `ask: {on: emma-tablet, as: q1, handles: [pal], app: com.example.chat, expiresIn: 10m, error: ...}`
    public struct Ask: Sendable, Decodable {
        /// The child's device.
        public var on: DeviceID
        /// The name later steps use for this question.
        public var name: String
        public var handles: [String]
        public var app: String
        /// message, call, videoCall, ...
        public var actions: [String]
        public var expiresIn: ScenarioDuration?
        /// The app's note to the parents, shown with the question.
        public var note: String?
        /// The ask is expected to fail with an error whose description contains this text.
        public var error: String?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(
                ["on", "as", "handles", "app", "actions", "expiresIn", "note", "error"], in: decoder, what: "an ask")
            let c = try decoder.container(keyedBy: Key.self)
            on = try c.decode(String.self, forKey: Key("on"))
            name = try c.decode(String.self, forKey: Key("as"))
            handles = try c.decode([String].self, forKey: Key("handles"))
            app = try c.decodeIfPresent(String.self, forKey: Key("app")) ?? "com.example.chat"
            actions = try c.decodeIfPresent([String].self, forKey: Key("actions")) ?? ["message"]
            expiresIn = try c.decodeIfPresent(ScenarioDuration.self, forKey: Key("expiresIn"))
            note = try c.decodeIfPresent(String.self, forKey: Key("note"))
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }

    /// `approve: {question: q1, on: alice-phone, message: "Have fun", error: alreadyAnswered}`
    public struct Answer: Sendable, Decodable {
        public var question: String
        /// The parent's device.
        public var on: DeviceID
        /// The parent's message, delivered to the app with the response.
        public var message: String?
        /// The answer is expected to be refused with this error code (e.g. `expired`, `alreadyAnswered`).
        public var error: String?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(["question", "on", "message", "error"], in: decoder, what: "an answer")
            let c = try decoder.container(keyedBy: Key.self)
            question = try c.decode(String.self, forKey: Key("question"))
            on = try c.decode(String.self, forKey: Key("on"))
            message = try c.decodeIfPresent(String.self, forKey: Key("message"))
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }

    /// `revoke: {child: emma, handles: [pal], on: alice-phone, error: notFound}`
    public struct Revoke: Sendable, Decodable {
        public var child: MemberID
        public var handles: [String]
        /// The parent's device.
        public var on: DeviceID
        /// The revocation is expected to be refused with this error code.
        public var error: String?

        public init(from decoder: any Decoder) throws {
            try Scenario.allowOnly(["child", "handles", "on", "error"], in: decoder, what: "a revoke")
            let c = try decoder.container(keyedBy: Key.self)
            child = try c.decode(String.self, forKey: Key("child"))
            handles = try c.decode([String].self, forKey: Key("handles"))
            on = try c.decode(String.self, forKey: Key("on"))
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }

    /// `limits: {child: emma, on: alice-phone, enabled: true, screenTime: everyone, downtime: contactsOnly,
    /// schedule: "21:00-07:00", contactEditing: false, error: notAuthorized}`; what is not given stays as it is.
    public struct Limits: Sendable, Decodable {
        public var child: MemberID
        /// The parent's device.
        public var on: DeviceID
        public var enabled: Bool?
        public var screenTime: CommunicationSettings.Scope?
        public var downtime: CommunicationSettings.Scope?
        /// `HH:MM-HH:MM`, or `none`.
        public var schedule: String?
        public var contactEditing: Bool?
        public var error: String?

        public init(from decoder: any Decoder) throws {
            let keys = ["child", "on", "enabled", "screenTime", "downtime", "schedule", "contactEditing", "error"]
            try Scenario.allowOnly(Set(keys), in: decoder, what: "a limits step")
            let c = try decoder.container(keyedBy: Key.self)
            child = try c.decode(String.self, forKey: Key("child"))
            on = try c.decode(String.self, forKey: Key("on"))
            enabled = try c.decodeIfPresent(Bool.self, forKey: Key("enabled"))
            func scope(_ key: String) throws -> CommunicationSettings.Scope? {
                guard let name = try c.decodeIfPresent(String.self, forKey: Key(key)) else { return nil }
                guard let scope = CommunicationSettings.Scope(name: name) else {
                    let names = CommunicationSettings.Scope.allCases.map(\.name).joined(separator: ", ")
                    throw ScenarioError("\(Scenario.path(decoder.codingPath)): \(key) '\(name)' is not one of \(names)")
                }
                return scope
            }
            screenTime = try scope("screenTime")
            downtime = try scope("downtime")
            schedule = try c.decodeIfPresent(String.self, forKey: Key("schedule"))
            if let schedule, schedule != "none", CommunicationSettings.Downtime(text: schedule) == nil {
                let path = Scenario.path(decoder.codingPath)
                throw ScenarioError("\(path): schedule '\(schedule)' is not HH:MM-HH:MM or none")
            }
            contactEditing = try c.decodeIfPresent(Bool.self, forKey: Key("contactEditing"))
            error = try c.decodeIfPresent(String.self, forKey: Key("error"))
        }
    }

    /// `expect: {response: q1, on: emma-tablet, answer: approval, by: alice}`, and `pending`, `notPending`, `known`,
    /// `unknown`, `linked`; waits up to `within` (or the scenario's timeout) for it to hold.
    public struct Expectation: Sendable, Decodable {
        public enum Check: Sendable {
            /// The question is (or, with `false`, is no longer) pending at a parent's device.
            case pending(String, Bool)
            /// The app got a response to the question (exactly one).
            case response(String)
            case known(String)
            /// Checked at once: the handle is not known.
            case unknown(String)
            case linked(Bool)
            /// The parent's device was told of the question (a notification, of `kind` when given).
            case notified(String)
            /// The app's age range request got its answer: `answer: declined`, or `answer: sharing` with `range`.
            case ageResponse(String)
            /// The child's history, read from the broker through a parent's device, has an entry of kind `entry`
            /// (by `by`, about `question`, when given).
            case history(MemberID)
        }

        public var check: Check
        public var on: DeviceID
        /// The app whose responses or known handles count (default `com.example.chat`).
        public var app: String
        /// For a response: `approval` or `denial`.
        public var answer: String?
        /// For a response: the member who answered.
        public var by: String?
        /// For a response: parentAnswered, alreadyKnown, defaultLimitsOff, defaultNoFamily, expired, ...
        public var reason: String?
        /// For a response: the parent's message that came with it.
        public var message: String?
        public var within: ScenarioDuration?
        /// For `notified`: questionPending, questionAnswered, questionExpired or questionClosed.
        public var kind: String?
        /// For `ageResponse`: the shared range, `13-15`, `16-` (16 or over) or `-12` (under 13).
        public var range: String?
        /// For `history`: the entry's kind (answered, limitsChanged, ...).
        public var entry: String?
        /// For `history`: the question the entry is about.
        public var question: String?

        public init(from decoder: any Decoder) throws {
            let checks = [
                "pending", "notPending", "response", "known", "unknown", "linked", "notified", "ageResponse", "history",
            ]
            let options = [
                "on", "app", "answer", "by", "reason", "message", "within", "kind", "range", "entry", "question",
            ]
            try Scenario.allowOnly(Set(checks + options), in: decoder, what: "an expectation")
            let c = try decoder.container(keyedBy: Key.self)
            let given = c.allKeys.map(\.stringValue).filter(checks.contains)
            guard given.count == 1, let kind = given.first else {
                throw ScenarioError(
                    "\(Scenario.path(decoder.codingPath)): an expectation has exactly one of \(checks.joined(separator: ", "))"
                )
            }
            switch kind {
            case "pending": check = .pending(try c.decode(String.self, forKey: Key(kind)), true)
            case "notPending": check = .pending(try c.decode(String.self, forKey: Key(kind)), false)
            case "response": check = .response(try c.decode(String.self, forKey: Key(kind)))
            case "known": check = .known(try c.decode(String.self, forKey: Key(kind)))
            case "unknown": check = .unknown(try c.decode(String.self, forKey: Key(kind)))
            case "notified": check = .notified(try c.decode(String.self, forKey: Key(kind)))
            case "ageResponse": check = .ageResponse(try c.decode(String.self, forKey: Key(kind)))
            case "history": check = .history(try c.decode(String.self, forKey: Key(kind)))
            default: check = .linked(try c.decode(Bool.self, forKey: Key(kind)))
            }
            on = try c.decode(String.self, forKey: Key("on"))
            app = try c.decodeIfPresent(String.self, forKey: Key("app")) ?? "com.example.chat"
            answer = try c.decodeIfPresent(String.self, forKey: Key("answer"))
            by = try c.decodeIfPresent(String.self, forKey: Key("by"))
            reason = try c.decodeIfPresent(String.self, forKey: Key("reason"))
            message = try c.decodeIfPresent(String.self, forKey: Key("message"))
            within = try c.decodeIfPresent(ScenarioDuration.self, forKey: Key("within"))
            range = try c.decodeIfPresent(String.self, forKey: Key("range"))
            entry = try c.decodeIfPresent(String.self, forKey: Key("entry"))
            question = try c.decodeIfPresent(String.self, forKey: Key("question"))
            if let given = entry, !HistoryEntry.Kind.allCases.map(\.name).contains(given) {
                let names = HistoryEntry.Kind.allCases.map(\.name).joined(separator: ", ")
                throw ScenarioError("\(Scenario.path(decoder.codingPath)): entry '\(given)' is not one of \(names)")
            }
            self.kind = try c.decodeIfPresent(String.self, forKey: Key("kind"))
            if let given = self.kind, !ParentNotification.Kind.allCases.map(\.name).contains(given) {
                let names = ParentNotification.Kind.allCases.map(\.name).joined(separator: ", ")
                throw ScenarioError("\(Scenario.path(decoder.codingPath)): kind '\(given)' is not one of \(names)")
            }
        }

        var summary: String {
            switch check {
            case .pending(let q, true): "\(q) pending on \(on)"
            case .pending(let q, false): "\(q) no longer pending on \(on)"
            case .response(let q):
                "response to \(q) on \(on)"
                    + [answer, by.map { "by \($0)" }, reason].compactMap { $0 }.map { " " + $0 }.joined()
            case .known(let h): "\(h) known on \(on)"
            case .unknown(let h): "\(h) not known on \(on)"
            case .linked(let up): "\(on) \(up ? "linked to" : "cut off from") the broker"
            case .notified(let q): "\(on) told of \(q)" + (kind.map { " (\($0))" } ?? "")
            case .ageResponse(let r):
                "age range answer to \(r) on \(on)" + [answer, range].compactMap { $0 }.map { " " + $0 }.joined()
            case .history(let child):
                "\(child)'s history on \(on) has "
                    + [entry ?? "an entry", by.map { "by \($0)" }, question.map { "about \($0)" }].compactMap { $0 }
                    .joined(separator: " ")
            }
        }
    }
}
