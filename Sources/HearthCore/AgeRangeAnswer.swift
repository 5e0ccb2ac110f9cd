/// What the broker answers to an age range request: a range, or a refusal and why.
public enum AgeRangeAnswer: Hashable, Sendable {
    case sharing(DeclaredRange)
    case declined(AgeDeclineReason)
}

/// Why an age range was not shared. Apps see only `declinedSharing`; the reason is for the user's own tools and logs.
public enum AgeDeclineReason: UInt8, Hashable, Sendable, CaseIterable {
    /// The member's setting is Never Share.
    case neverShare = 1
    /// The user answered a prompt with decline (remembered until the next anniversary).
    case userDeclined = 2
    /// Nobody answered the Ask First prompt in time (not remembered: the next request prompts again).
    case promptTimedOut = 3
}

/// A member's Declared Age Range sharing setting.
public enum AgeSharing: UInt8, Hashable, Sendable, CaseIterable {
    /// Answer automatically; the user is notified when new information is revealed.
    case always = 1
    /// Prompt the user each time new information would be revealed.
    case askFirst = 2
    /// Always decline, without a prompt.
    case never = 3

    /// The default for a member nobody set a setting for.
    public static let `default` = AgeSharing.askFirst

    /// `always`, `ask`, `never`: the spelling on the command line.
    public var name: String {
        switch self {
        case .always: "always"
        case .askFirst: "ask"
        case .never: "never"
        }
    }

    public init?(name: String) {
        switch name.lowercased() {
        case "always", "always-share": self = .always
        case "ask", "ask-first", "askfirst": self = .askFirst
        case "never", "never-share": self = .never
        default: return nil
        }
    }
}
