public import HearthCore

extension Event {
    /// The lowest protocol version a peer must have negotiated to read the event as it is: 3 for an age range
    /// whose declaration is an assurance method (values 3–9) and for a history entry of a kind of version 3 (an
    /// acknowledged update); 4 for a question declined in person and its history entry; 1 for every other event.
    public var peerVersion: UInt8 {
        switch body {
        case .historyRecorded(let entry): entry.kind.protocolVersion
        case .questionResolved(_, let resolution) where resolution.reason == .declinedInPerson:
            Wire.inPersonDeclineVersion
        case .ageRange: carriesAssurance ? Wire.ageSignalsVersion : Wire.minimumVersion
        default: Wire.minimumVersion
        }
    }

    /// The event as a peer of `version` reads it: before version 3 an age range's assurance method becomes who
    /// declared, before version 4 a question declined in person reads as a parent's answer, and a history entry of
    /// a later kind stands as `omitted` at its position (a peer skips those). Every other event is returned unchanged.
    public func forPeer(version: UInt8) -> Event {
        guard version < peerVersion else { return self }
        var event = self
        switch body {
        case .ageRange(.answerChanged(let app, let answer)):
            event.body = .ageRange(.answerChanged(app: app, answer.forPeer(version: version)))
        case .ageRange(.promptClosed(let id, let app, let answer)):
            event.body = .ageRange(.promptClosed(id: id, app: app, answer.forPeer(version: version)))
        case .ageRange(.promptOpened(var prompt)):
            prompt.range.declaration = prompt.range.declaration.v1Equivalent
            event.body = .ageRange(.promptOpened(prompt))
        case .questionResolved(let asked, let resolution):
            event.body = .questionResolved(asked, resolution.forPeer(version: version))
        case .historyRecorded(let entry):
            let reason = "history entry kind \(entry.kind.rawValue) needs protocol \(entry.kind.protocolVersion)"
            event.body = .omitted(kind: body.kindCode, reason: reason)
        default:
            break
        }
        return event
    }

    /// True when the event holds an age range whose declaration is an assurance method (3–9), which only a peer of
    /// version 3 reads.
    public var carriesAssurance: Bool {
        guard case .ageRange(let body) = body else { return false }
        let range: DeclaredRange?
        switch body {
        case .answerChanged(_, let answer), .promptClosed(_, _, let answer):
            if case .sharing(let shared) = answer { range = shared } else { range = nil }
        case .promptOpened(let prompt): range = prompt.range
        }
        guard let range else { return false }
        return range.declaration.v1Equivalent != range.declaration
    }
}

extension Resolution {
    /// The resolution as a peer of `version` reads it: before version 4 a decline in person is a parent's answer.
    public func forPeer(version: UInt8) -> Resolution {
        var resolution = self
        resolution.reason = reason.forPeer(version: version)
        return resolution
    }
}
