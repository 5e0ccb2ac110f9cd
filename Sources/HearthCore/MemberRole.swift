/// A member's role in a Family Sharing group.
public enum MemberRole: UInt8, Hashable, Sendable, CaseIterable, Codable {
    /// The adult who created the group; also a parent/guardian.
    case organizer = 1
    /// An adult designated to manage the children's controls.
    case guardian = 2
    /// An adult with no say over the children.
    case adult = 3
    /// A child or teen.
    case child = 4

    /// True for the roles that answer children's questions.
    public var isParent: Bool { self == .organizer || self == .guardian }

    /// The spelling used in config files and on the command line.
    public var name: String {
        switch self {
        case .organizer: "organizer"
        case .guardian: "guardian"
        case .adult: "adult"
        case .child: "child"
        }
    }

    /// Parses `name`; `parent` is accepted as a synonym of `guardian`.
    public init?(name: String) {
        switch name.lowercased() {
        case "organizer": self = .organizer
        case "guardian", "parent": self = .guardian
        case "adult": self = .adult
        case "child", "teen": self = .child
        default: return nil
        }
    }
}
