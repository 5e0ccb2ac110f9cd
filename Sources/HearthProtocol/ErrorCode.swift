/// Error codes carried by an `error` reply. Stable across versions: a client may switch on them.
public enum ErrorCode: UInt16, Sendable, Hashable, CaseIterable {
    case malformedMessage = 1
    case unsupportedVersion = 2
    case unknownMessageType = 3
    /// The authenticated caller may not do this.
    case notAuthorized = 4
    /// No such question (or other object).
    case notFound = 5
    /// Another answer won already.
    case alreadyAnswered = 6
    /// The question's expiration date has passed.
    case expired = 7
    /// The question breaks a rule: no handles, bad choices, default not among choices.
    case invalidQuestion = 8
    /// Too many commands; retry later.
    case rateLimited = 9
    /// The caller is not a child: PermissionKit questions are for children only.
    case notAvailable = 10
    /// The broker failed; nothing was stored.
    case internalError = 11
    /// The choice id is not one of the question's choices.
    case invalidChoice = 12
    /// The device did not say hello first, or its hello was refused.
    case helloRequired = 13
    /// A local daemon is not connected to its broker and cannot answer now.
    case brokerUnavailable = 14
    /// A settings, contacts or admin request breaks a rule (the message names it); nothing was changed.
    case invalidRequest = 15
    /// Too many wrong passcodes: approving in person is locked for a while (the message says until when).
    case lockedOut = 16
    /// The passcode is wrong (or none is set).
    case wrongPasscode = 17
    /// Declared Age Range: the request's age gates break a rule; the message names it.
    case invalidAgeRequest = 20
    /// Declared Age Range: the member has no birth date on record, so there is no age to share.
    case ageNotDeclared = 21
    /// The broker refused this device's key: it is not enrolled in any family file.
    case deviceNotEnrolled = 22
    /// The question's encoding is over its budget (`QuestionBudget`, 1,044,480 bytes); the message names the
    /// question's size, the budget and its largest field. Nothing was stored.
    case questionTooLarge = 23
    /// A text an app, a child or a parent controls (a note, a message, a handle, a name, a choice's id or title, an
    /// update's description) breaks its `ShortText` rule (too long in bytes or characters, empty, a control or
    /// bidirectional character, not NFC); the message reads `FIELD: REASON`, naming the field. Nothing was stored.
    case invalidText = 24
    /// The question was withdrawn by the child's app: nobody can answer it any more.
    case withdrawn = 25
    /// A `history` cursor that is not an entry of that child's history (the message names it); nothing was read.
    case invalidCursor = 26
    /// A question's choice passes for a standard one of the opposite answer (id or title `approve`/`Approve` on a
    /// denial, `decline`/`Decline` on an approval); the message reads `question.choices[N]: REASON`. Nothing was
    /// stored.
    case misleadingChoice = 27
    /// An unknown code from a newer peer.
    case unknown = 0xFFFF
}
