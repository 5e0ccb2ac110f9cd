import Foundation

/// What a choice means, told from its answer: an app names and titles its choices, but only the answer says what
/// choosing one does, so what a parent is shown and what each action sends follow the answer.
extension PermissionChoice.Answer {
    /// `approval` or `denial`, as JSON output and logs name it.
    public var name: String {
        switch self {
        case .approval: "approval"
        case .denial: "denial"
        }
    }

    /// `Approve` or `Decline`: the label of an action that gives this answer.
    public var actionLabel: String {
        switch self {
        case .approval: "Approve"
        case .denial: "Decline"
        }
    }

    /// `approved` or `declined`: what a parent did who gave this answer.
    public var pastTense: String {
        switch self {
        case .approval: "approved"
        case .denial: "declined"
        }
    }

    /// The other answer.
    public var opposite: Self { self == .approval ? .denial : .approval }

    /// The standard choice with this answer (`approve` or `decline`).
    public var standardChoice: PermissionChoice { self == .approval ? .approve : .decline }
}

extension PermissionChoice {
    /// What giving this choice did, in words a parent reads: `approved` or `declined`, then the app's own title when
    /// it says more than that, quoted and escaped, e.g. `approved (the app's "Allow for a week")`. Never the title
    /// alone: an app cannot make a denial read as an approval.
    public var outcome: String {
        let standard = answer.standardChoice
        if title.caseInsensitiveCompare(standard.title) == .orderedSame { return answer.pastTense }
        return "\(answer.pastTense) (the app's \"\(ShortText.escaped(title))\")"
    }

    /// Whether this choice passes for a standard one (`approve`/`Approve`, `decline`/`Decline`, in any case) of the
    /// opposite answer: a choice titled "Decline" that approves.
    public var impersonatesStandardChoice: Bool {
        let other = answer.opposite.standardChoice
        return id.caseInsensitiveCompare(other.id) == .orderedSame
            || title.trimmingWhitespace().caseInsensitiveCompare(other.title) == .orderedSame
    }

    /// The first of `choices` that passes for a standard choice of the opposite answer, as a violation naming it
    /// (`question.choices[N]`); nil when none does.
    public static func impersonation(in choices: [PermissionChoice]) -> ShortText.Violation? {
        guard let index = choices.firstIndex(where: \.impersonatesStandardChoice) else { return nil }
        let choice = choices[index]
        let other = choice.answer.opposite.standardChoice
        let what =
            choice.id.caseInsensitiveCompare(other.id) == .orderedSame
            ? "id \"\(other.id)\"" : "title \"\(other.title)\""
        return ShortText.Violation(
            field: "question.choices[\(index)]",
            reason:
                "choice \"\(ShortText.escaped(choice.id))\" has the \(what) of the standard \(other.answer.name) "
                + "choice but its answer is \(choice.answer.name)")
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> Substring {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return Substring(scalars[first...last])
    }
}
