public import Foundation

/// The entries the broker records, each with its line for a person.
extension HistoryEntry {
    /// How a question ended, or nil for an ending nobody decided and no parent saw (resolved at once when asked).
    /// `deviceID`: the device whose command ended it (a parent's for an answer, the child's in person or when its
    /// app withdrew), nil for the broker's own sweep or an admin change.
    public init?(asked: AskedQuestion, resolution: Resolution, deviceID: DeviceID?) {
        let child = asked.childMemberID
        let subject = ParentNotification.subject(asked.question)
        // The answer given, in words, before any title the app chose: a "Decline" that approves reads "approved".
        let outcome = resolution.choice.outcome
        var choice: PermissionChoice? = resolution.choice
        let kind: Kind
        var actor: MemberID?
        let summary: String
        switch resolution.reason {
        case .parentAnswered:
            kind = .answered
            actor = resolution.answeredBy
            summary =
                "\(actor ?? "a parent") \(outcome) for \(child): \(subject) in \(asked.appBundleID)"
                + ParentNotification.quoted(resolution.message)
        case .approvedInPerson:
            kind = .approvedInPerson
            summary =
                "approved in person on \(deviceID ?? "\(child)'s device") for \(child): \(subject) in \(asked.appBundleID)"
        case .declinedInPerson:
            kind = .declinedInPerson
            summary =
                "declined in person on \(deviceID ?? "\(child)'s device") for \(child): \(subject) in \(asked.appBundleID)"
        case .expired:
            kind = .expired
            summary = "expired unanswered, so \(outcome) for \(child): \(subject) in \(asked.appBundleID)"
        case .withdrawn:
            kind = .withdrawn
            actor = child
            choice = nil  // nobody's answer: the default the app receives is not one a parent gave
            summary = "\(child) withdrew the question \(subject) in \(asked.appBundleID)"
        case .childRemoved:
            kind = .closed
            summary = "closed as \(outcome) when \(child) left the family: \(subject)"
        case .defaultNoFamily, .defaultLimitsOff, .alreadyKnown:
            return nil
        }
        self.init(
            childMemberID: child, recordedAt: resolution.resolvedAt, kind: kind, actor: actor, deviceID: deviceID,
            questionID: asked.question.id, appBundleID: asked.appBundleID, choice: choice,
            message: resolution.message, handles: asked.question.handles, summary: summary)
    }

    /// A change of the child's limits, naming each setting that changed; nil when none did.
    public static func limitsChanged(
        child: MemberID, at date: Date, by actor: MemberID, device: DeviceID?,
        from old: CommunicationSettings, to new: CommunicationSettings
    ) -> HistoryEntry? {
        var changes: [String] = []
        func note<T: Equatable>(_ name: String, _ a: T, _ b: T, _ text: (T) -> String) {
            if a != b { changes.append("\(name) \(text(a)) → \(text(b))") }
        }
        note("Communication Limits", old.enabled, new.enabled) { $0 ? "on" : "off" }
        note("Screen Time", old.screenTime, new.screenTime, \.name)
        note("downtime", old.downtime, new.downtime, \.name)
        note("downtime window", old.downtimeSchedule, new.downtimeSchedule) { $0?.text ?? "none" }
        note("contact editing", old.allowContactEditing, new.allowContactEditing) { $0 ? "allowed" : "not allowed" }
        guard !changes.isEmpty else { return nil }
        return HistoryEntry(
            childMemberID: child, recordedAt: date, kind: .limitsChanged, actor: actor, deviceID: device,
            summary: "\(actor) changed \(child)'s limits: " + changes.joined(separator: "; "))
    }

    /// Contacts added (or changed: whether allowed during downtime) and removed; nil when nothing changed.
    public static func contactsChanged(
        child: MemberID, at date: Date, by actor: MemberID, device: DeviceID?, added: [Contact],
        removed: [CommunicationHandle]
    ) -> HistoryEntry? {
        guard !added.isEmpty || !removed.isEmpty else { return nil }
        var parts: [String] = []
        if !added.isEmpty {
            parts.append(
                "added "
                    + listed(added.map { "\($0.handle)" + ($0.allowedDuringDowntime ? " (during downtime too)" : "") }))
        }
        if !removed.isEmpty { parts.append("removed " + listed(removed.map { "\($0)" })) }
        return HistoryEntry(
            childMemberID: child, recordedAt: date, kind: .contactsChanged, actor: actor, deviceID: device,
            handles: added.map(\.handle) + removed,
            summary: "\(actor) changed \(child)'s contacts: " + parts.joined(separator: "; "))
    }

    /// Approvals taken back; nil when none of the handles was approved.
    public static func approvalRevoked(
        child: MemberID, at date: Date, by actor: MemberID, device: DeviceID?, handles: [CommunicationHandle]
    ) -> HistoryEntry? {
        guard !handles.isEmpty else { return nil }
        return HistoryEntry(
            childMemberID: child, recordedAt: date, kind: .approvalRevoked, actor: actor, deviceID: device,
            handles: handles, summary: "\(actor) revoked \(child)'s approval of " + listed(handles.map { "\($0)" }))
    }

    /// The Screen Time passcode set (`had` false), changed, or cleared (`has` false); never the passcode itself.
    public static func passcodeChanged(
        child: MemberID, at date: Date, by actor: MemberID, device: DeviceID?, had: Bool, has: Bool
    ) -> HistoryEntry? {
        guard had || has else { return nil }
        let verb = !has ? "cleared" : had ? "changed" : "set"
        return HistoryEntry(
            childMemberID: child, recordedAt: date, kind: .passcodeChanged, actor: actor, deviceID: device,
            summary: "\(actor) \(verb) \(child)'s Screen Time passcode")
    }

    /// The child's Declared Age Range sharing changed; nil when it did not.
    public static func ageSharingChanged(
        child: MemberID, at date: Date, by actor: MemberID, device: DeviceID?, from old: AgeSharing, to new: AgeSharing
    ) -> HistoryEntry? {
        guard old != new else { return nil }
        return HistoryEntry(
            childMemberID: child, recordedAt: date, kind: .ageSharingChanged, actor: actor, deviceID: device,
            summary: "\(actor) changed \(child)'s age range sharing: \(old.name) → \(new.name)")
    }

    /// The child acknowledged a significant update of `app`, described by the app as `description` (kept whole in
    /// `message`; quoted, on one line, in the summary).
    public static func updateAcknowledged(
        child: MemberID, at date: Date, device: DeviceID?, app: BundleID, description: String
    ) -> HistoryEntry {
        HistoryEntry(
            childMemberID: child, recordedAt: date, kind: .updateAcknowledged, actor: child, deviceID: device,
            appBundleID: app, message: description,
            summary: "\(child) acknowledged a significant update of \(app)" + ParentNotification.quoted(description))
    }

    /// The first few items, and how many more.
    private static func listed(_ items: [String]) -> String {
        let shown = items.prefix(5).joined(separator: ", ")
        return items.count > 5 ? "\(shown) and \(items.count - 5) more" : shown
    }
}
