/// A question about communicating with one or more people.
public struct CommunicationTopic: Hashable, Sendable, Codable {
    /// How the child wants to interact; the wording shown to the parent.
    public enum Action: UInt8, Hashable, Sendable, Codable, CaseIterable {
        case message = 1
        case call = 2
        case audioCall = 3
        case videoCall = 4
        case chat = 5
        case communicate = 6
        case connect = 7
        case follow = 8
        case beFollowed = 9
        case friend = 10
    }

    /// Apple's nested spelling, `CommunicationTopic.PersonInformation`: the same type as `PersonInformation`.
    public typealias PersonInformation = HearthCore.PersonInformation

    /// The people the child wants to talk to.
    public var personInformation: [PersonInformation]
    /// How the child wants to interact with them.
    public var actions: Set<Action>

    /// A topic about the given people; set `actions` to say how.
    public init(personInformation: [PersonInformation], actions: Set<Action> = []) {
        self.personInformation = personInformation
        self.actions = actions
    }

    /// The handles of every person in the topic.
    public var handles: [CommunicationHandle] { personInformation.map(\.handle) }
}
