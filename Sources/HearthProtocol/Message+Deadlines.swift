extension Message {
    /// How long a device daemon waits for the broker's reply to this command: 5 s, and 30 s for a command whose
    /// passcode the broker hashes. scrypt's cost is kept high on purpose and the broker hashes one passcode at a time,
    /// so on a busy machine such a reply may take several seconds without anything being wrong (docs/PROTOCOL.md §3).
    public var brokerDeadline: Duration {
        hashesPasscode ? .seconds(30) : .seconds(5)
    }

    /// How long a local client waits for its daemon's reply: the broker's deadline and 5 s more, so that the daemon's
    /// own answer (the broker's reply or its typed `brokerUnavailable`) arrives before the client gives up.
    public var localDeadline: Duration {
        brokerDeadline + .seconds(5)
    }

    /// Whether the broker runs scrypt for this command: a passcode set (not cleared) or typed on the child's device.
    public var hashesPasscode: Bool {
        switch self {
        case .setPasscode(_, let passcode): !passcode.isEmpty
        case .approveInPerson, .declineInPerson: true
        default: false
        }
    }
}
