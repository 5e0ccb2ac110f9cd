public import HearthCore

/// The rules a broker enforces beyond its family file: regions, child defaults, family size, passcode attempts.
public struct BrokerPolicy: Sendable {
    public var regions: RegionRules
    public var childDefaults: ChildDefaults {
        didSet { resolvedDefaults = ResolvedChildDefaults(childDefaults) }
    }
    /// `childDefaults` made ready for asks, once per change.
    private(set) var resolvedDefaults: ResolvedChildDefaults
    /// Most members per family (Family Sharing: 6).
    public var maxFamilyMembers: Int
    /// scrypt cost (log2 N) for new passcode hashes.
    public var passcodeCost: Int
    /// Wrong passcodes allowed before approving in person locks; each further wrong one doubles the lockout.
    public var passcodeAttempts: Int
    /// The first lockout, in seconds.
    public var passcodeLockoutSeconds: Int
    /// How long a Declared Age Range Ask First prompt waits for the user before it counts as declined.
    public var agePromptTimeout: Duration = .seconds(60)

    public init(
        regions: RegionRules = .builtIn, childDefaults: ChildDefaults = .builtIn,
        maxFamilyMembers: Int = Directory.defaultMaxFamilyMembers,
        passcodeCost: Int = PasscodeHash.defaultCost, passcodeAttempts: Int = 5, passcodeLockoutSeconds: Int = 60
    ) {
        self.regions = regions
        self.childDefaults = childDefaults
        resolvedDefaults = ResolvedChildDefaults(childDefaults)
        self.maxFamilyMembers = maxFamilyMembers
        self.passcodeCost = passcodeCost
        self.passcodeAttempts = passcodeAttempts
        self.passcodeLockoutSeconds = passcodeLockoutSeconds
    }

    /// The lockout after `failures` wrong passcodes in a row: none before the limit, then 1×, 2×, 4×… the first, at most a day.
    public func lockout(afterFailures failures: Int) -> Int {
        guard failures >= passcodeAttempts else { return 0 }
        let doublings = min(failures - passcodeAttempts, 20)
        return min(passcodeLockoutSeconds << doublings, 86_400)
    }
}
