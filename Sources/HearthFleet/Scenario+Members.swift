import HearthCore

extension Scenario {
    /// Checks the member a step acts on before any daemon starts: a typo in `child:` or `member:` would otherwise be
    /// found only when the broker refuses the step, under the fleet's logs. A step that expects a refusal
    /// (`error:`) may name anyone.
    func checkSubject(of step: Step, fail: (String) -> ScenarioError) throws {
        guard let subject = step.subject, subject.error == nil else { return }
        var familyOf: [MemberID: FamilyID] = [:]
        var roleOf: [MemberID: String] = [:]
        var ownerOf: [DeviceID: MemberID] = [:]
        for family in families {
            for member in family.members {
                familyOf[member.id] = family.id
                roleOf[member.id] = member.role
                for device in member.devices { ownerOf[device] = member.id }
            }
        }
        for member in unaffiliated ?? [] {
            roleOf[member.id] = member.role
            for device in member.devices { ownerOf[device] = member.id }
        }
        let members = roleOf.keys.sorted().joined(separator: ", ")
        guard let role = roleOf[subject.member] else {
            throw fail("no member '\(subject.member)' in the families; members are \(members)")
        }
        if subject.child, role != "child" {
            throw fail("'\(subject.member)' is not a child (role \(role)); add error: to expect the refusal")
        }
        guard let owner = ownerOf[subject.on], owner != subject.member else { return }
        guard let family = familyOf[owner], family == familyOf[subject.member] else {
            throw fail(
                "'\(subject.on)' belongs to \(owner), who is not in \(subject.member)'s family; "
                    + "add error: notFound to expect the refusal")
        }
    }
}

extension Scenario.Step {
    /// The member a step acts on, the device it runs on, whether that member must be a child, and the refusal the
    /// step expects; nil for steps that name no member.
    var subject: (member: MemberID, on: DeviceID, child: Bool, error: String?)? {
        switch self {
        case .revoke(let step): (step.child, step.on, true, step.error)
        case .limits(let step): (step.child, step.on, true, step.error)
        case .contacts(let step): (step.child, step.on, true, step.error)
        case .passcode(let step): (step.child, step.on, true, step.error)
        case .ageSharing(let step): (step.member, step.on, false, step.error)
        case .expect(let expectation):
            if case .history(let child) = expectation.check { (child, expectation.on, true, nil) } else { nil }
        default: nil
        }
    }
}
