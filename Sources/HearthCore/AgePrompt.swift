public import Foundation

/// An Ask First prompt: may `app` learn `range`? Shown on the member's own devices until answered or expired.
public struct AgePrompt: Hashable, Sendable {
    public var id: UUID
    public var memberID: MemberID
    public var app: BundleID
    /// The gates the app asked with.
    public var gates: [Int]
    /// What the app would learn.
    public var range: DeclaredRange
    public var createdAt: Date
    /// After this the prompt counts as declined.
    public var expiresAt: Date

    public init(
        id: UUID, memberID: MemberID, app: BundleID, gates: [Int], range: DeclaredRange, createdAt: Date,
        expiresAt: Date
    ) {
        self.id = id
        self.memberID = memberID
        self.app = app
        self.gates = gates
        self.range = range
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
