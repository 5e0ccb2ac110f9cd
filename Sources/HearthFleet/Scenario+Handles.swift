import HearthCore

extension Scenario {
    /// Checks the handles a step names before any daemon starts, by the rule hearthctl follows
    /// (`CommunicationHandle(parsing:bareIsCustom:)`): `phone:555-1234` would otherwise be sent as a contact nobody
    /// has. A bare value is a custom handle (a username). A step that expects a refusal (`error:`) is checked too:
    /// the broker never sees a handle the fleet cannot read.
    func checkHandles(of step: Step, fail: (String) -> ScenarioError) throws {
        for text in step.handles {
            do {
                _ = try CommunicationHandle(parsing: text, bareIsCustom: true)
            } catch {
                throw fail("handle '\(text)': \(error)")
            }
        }
    }
}

extension Scenario.Step {
    /// The handles a step names, as written: an ask's and a revoke's, a contacts step's, a known or unknown check's.
    var handles: [String] {
        switch self {
        case .ask(let ask): ask.handles
        case .revoke(let revoke): revoke.handles
        case .contacts(let contacts): contacts.add + contacts.addDowntime + contacts.remove
        case .expect(let expectation):
            switch expectation.check {
            case .known(let text), .unknown(let text): [text]
            default: []
            }
        default: []
        }
    }
}
