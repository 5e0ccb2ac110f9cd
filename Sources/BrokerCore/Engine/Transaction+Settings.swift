import Foundation
import HearthCore
import HearthProtocol
import Logging

extension Transaction {
    /// The child's settings: as a parent set them, else the age-appropriate defaults.
    func settings(of child: Directory.Member) throws -> CommunicationSettings {
        if let stored = try store.settings(of: child.id) { return stored }
        return defaultSettings(for: child)
    }

    func defaultSettings(for child: Directory.Member) -> CommunicationSettings {
        let age = child.birthDate?.age(onDay: localTimes.day(in: child.timeZone))
        var settings = policy.resolvedDefaults.settings(forAge: age)
        if let enabled = child.initialLimits { settings.enabled = enabled }
        return settings
    }

    /// Whether the child's downtime is in force now, in the child's time zone.
    func inDowntime(_ settings: CommunicationSettings, child: Directory.Member) -> Bool {
        guard let schedule = settings.downtimeSchedule else { return false }
        return schedule.contains(minute: localTimes.minuteOfDay(in: child.timeZone))
    }

    /// The subset of `handles` the child may talk to now (docs/FAMILY-RULES.md): emergency numbers always; with limits off
    /// or scope `everyone`, all; `contactsOnly`: contacts and approved handles; `contactsAndGroups`: the same, and a group
    /// (more than one handle) as a whole when at least one of them is a contact or approved; during downtime with
    /// `specificContacts`: only contacts marked as allowed during downtime.
    /// `settings`: the child's, when the caller has already read them.
    func knownHandles(
        of child: Directory.Member, among handles: [CommunicationHandle], settings: CommunicationSettings? = nil
    ) throws -> [CommunicationHandle] {
        let settings = try settings ?? self.settings(of: child)
        guard settings.enabled else { return handles }
        let scope = inDowntime(settings, child: child) ? settings.downtime : settings.screenTime
        if scope == .everyone { return handles }
        let contacts = try store.contactFlags(of: child.id, among: handles)
        let approved = Set(try store.knownHandles(of: child.id, among: handles))
        let emergency = policy.resolvedDefaults.emergencyHandles
        let known = handles.filter { handle in
            if emergency.contains(handle) { return true }
            if scope == .specificContacts { return contacts[handle] == true }
            return contacts[handle] != nil || approved.contains(handle)
        }
        // An emergency number in a group does not vouch for the others: only a contact or an approved handle does.
        if scope == .contactsAndGroups, Set(handles).count > 1, known.contains(where: { !emergency.contains($0) }) {
            return handles
        }
        return known
    }

    // MARK: commands

    mutating func setLimits(
        _ new: CommunicationSettings, of childID: MemberID, caller: Directory.Member
    ) throws -> BrokerReply {
        let child = try childForSettings(childID, caller: caller, allowSelf: false)
        guard new.screenTime != .specificContacts else {
            throw ErrorReply(.invalidRequest, "screenTime cannot be specificContacts: that scope is for downtime")
        }
        let old = try settings(of: child)
        try store.saveSettings(new, of: child.id)
        try recordHistory(
            .limitsChanged(child: child.id, at: now, by: caller.id, device: commandDevice, from: old, to: new),
            family: child.familyID)
        logger.info(
            "limits changed", metadata: ["child": "\(child.id)", "by": "\(caller.id)", "enabled": "\(new.enabled)"])
        return .limits(childID: child.id, settings: new, contacts: try store.contacts(of: child.id))
    }

    mutating func editContacts(
        of childID: MemberID, add: [Contact], remove: [CommunicationHandle], caller: Directory.Member
    ) throws -> BrokerReply {
        let child = try childForSettings(childID, caller: caller, allowSelf: true)
        let settings = try settings(of: child)
        if caller.id == child.id, !settings.allowContactEditing {
            throw ErrorReply(.notAuthorized, "a parent has not allowed \(child.id) to edit contacts")
        }
        if caller.id == child.id, add.contains(where: \.allowedDuringDowntime) {
            throw ErrorReply(.notAuthorized, "only a parent chooses who is reachable during downtime")
        }
        // A contact added reaches every guardian (history, notifications): the handle's text rule. Removals are not
        // checked, so that a contact stored before the rule can still be removed.
        if let violation = ShortText.violation(in: add.map(\.handle), field: "editContacts.add") {
            throw ErrorReply(.invalidText, violation.description)
        }
        let overlap = Set(add.map(\.handle)).intersection(remove)
        guard overlap.isEmpty else { throw ErrorReply(.invalidRequest, "\(overlap.first!) is both added and removed") }
        // What really changes, for the history: new contacts and changed downtime marks (the last of a repeat wins).
        let before = try store.contactFlags(of: child.id, among: add.map(\.handle))
        var seen = Set<CommunicationHandle>()
        let changed = add.reversed().filter { contact in
            seen.insert(contact.handle).inserted && before[contact.handle] != contact.allowedDuringDowntime
        }.reversed()
        let added = try store.upsertContacts(add, of: child.id)
        let removed = try store.removeContacts(remove, of: child.id)
        if !added.isEmpty || !removed.isEmpty {
            try publish(.handlesChanged(added: added, removed: removed), to: child.id)
        }
        try recordHistory(
            .contactsChanged(
                child: child.id, at: now, by: caller.id, device: commandDevice, added: Array(changed),
                removed: removed),
            family: child.familyID)
        return .limits(childID: child.id, settings: settings, contacts: try store.contacts(of: child.id))
    }

    mutating func revokeApproval(
        _ handles: [CommunicationHandle], of childID: MemberID, caller: Directory.Member
    ) throws -> BrokerReply {
        let child = try childForSettings(childID, caller: caller, allowSelf: false)
        guard !handles.isEmpty else { throw ErrorReply(.invalidRequest, "name at least one handle to revoke") }
        let removed = try store.removeKnownHandles(handles, child: child.id)
        if !removed.isEmpty {
            try publish(.handlesChanged(added: [], removed: removed), to: child.id)
        }
        try recordHistory(
            .approvalRevoked(child: child.id, at: now, by: caller.id, device: commandDevice, handles: removed),
            family: child.familyID)
        logger.info(
            "approval revoked", metadata: ["child": "\(child.id)", "by": "\(caller.id)", "handles": "\(removed.count)"])
        return .handlesRevoked(removed)
    }

    mutating func setPasscode(
        _ passcode: String, of childID: MemberID, caller: Directory.Member
    ) throws -> BrokerReply {
        let child = try childForSettings(childID, caller: caller, allowSelf: false)
        let change = HistoryEntry.passcodeChanged(
            child: child.id, at: now, by: caller.id, device: commandDevice,
            had: try store.passcode(of: child.id) != nil, has: !passcode.isEmpty)
        if passcode.isEmpty {
            try store.savePasscode(nil, of: child.id)
            try recordHistory(change, family: child.familyID)
            return .ok
        }
        guard PasscodeHash.lengthRange.contains(passcode.count) else {
            throw ErrorReply(
                .invalidRequest,
                "a passcode has \(PasscodeHash.lengthRange.lowerBound) to \(PasscodeHash.lengthRange.upperBound) characters"
            )
        }
        guard case .newHash(let hash)? = secrets[commandIndex] else {
            throw ErrorReply(.internalError, "the passcode could not be hashed; nothing was changed")
        }
        try store.savePasscode(.init(hash: hash.encoded, failures: 0, lockedUntil: .distantPast), of: child.id)
        try recordHistory(change, family: child.familyID)
        logger.info("passcode set", metadata: ["child": "\(child.id)", "by": "\(caller.id)"])
        return .ok
    }
}
