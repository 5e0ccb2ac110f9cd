public import BrokerCore
public import BrokerPostgres
import Foundation

/// How a broker runs. The daemon fills it from flags and environment; tests and the fleet build it directly.
public struct BrokerOptions: Sendable {
    /// ROUTER endpoint for commands, e.g. `tcp://127.0.0.1:7701`; port 0 picks a free port (see `readyFile`).
    public var ingress: String
    /// XPUB endpoint for events.
    public var egress: String
    /// Directory for the database and the ready file.
    public var stateDirectory: String
    /// The family file (YAML).
    public var familyFile: String
    /// Where relative `keyFile` entries of the family file are looked up; defaults to the family file's directory.
    public var keysDirectory: String?
    /// The broker's CURVE secret key file; made on first run if missing (with the `.pub` beside it).
    public var secretKeyFile: String
    /// How often each subscribed member gets a heartbeat carrying its head sequence.
    public var heartbeatInterval: Duration
    /// Outbound queue per subscriber before the broker drops events for it (it recovers by syncing).
    public var subscriberHighWaterMark: Int32
    /// How long a Declared Age Range Ask First prompt waits for the user before it counts as declined.
    public var agePromptTimeout: Duration = .seconds(60)

    /// `config/regions.yaml`-style file; nil: the compiled-in table.
    public var regionsFile: String?
    /// `config/child-defaults.yaml`-style file; nil: the compiled-in defaults.
    public var childDefaultsFile: String?
    /// Overrides the child defaults' ask limit.
    public var askLimit: ChildDefaults.AskLimit?
    /// Most members per family.
    public var maxFamilyMembers: Int = Directory.defaultMaxFamilyMembers
    /// Commands per second each device may send (sustained), and the burst it may save up.
    public var deviceCommandRate: Double = 200
    public var deviceCommandBurst: Double = 1000
    /// How long a device that sent what no device sends (a command of many frames, a subscription to a topic not its
    /// member's) is refused: its connections are dropped and ZAP turns its key away until then.
    public var hostileCutOff: Duration = .seconds(600)
    /// How often pending questions are checked for expiry.
    public var expiryInterval: Duration = .seconds(1)
    /// Where the state is kept: the SQLite file `databasePath` unless a PostgreSQL database is configured.
    public var store: StoreLocation = .sqlite
    /// How long the broker keeps trying to reach its PostgreSQL store at start before it exits 78 (zero: once).
    public var storeConnectRetry: Duration = .zero
    /// How long a PostgreSQL statement may go unanswered before the broker closes its connection and fails it (as
    /// `PostgresStore.defaultStatementTimeout`, spelled here too: a broker built without the PostgreSQL trait has the
    /// setting but not the store).
    public var storeStatementTimeout: Duration = .seconds(15)
    /// Tests only (set by the test kit's `family-broker-lab`, never by `family-broker`'s flags): how long each SQLite
    /// commit is held before it commits, asked before each commit, to make a slow disk; nil: no wait.
    public var commitDelay: (@Sendable () -> Duration)?
    /// Tests only (as `commitDelay`): scrypt's cost for new passcode hashes, to make hashing slow; nil:
    /// `PasscodeHash.defaultCost`.
    public var passcodeCost: Int?
    /// The broker's part in a cluster of brokers sharing one PostgreSQL store (unused on SQLite).
    public var cluster = ClusterOptions()

    public init(
        ingress: String, egress: String, stateDirectory: String, familyFile: String, keysDirectory: String? = nil,
        secretKeyFile: String? = nil, heartbeatInterval: Duration = .seconds(2), subscriberHighWaterMark: Int32 = 10_000
    ) {
        self.ingress = ingress
        self.egress = egress
        self.stateDirectory = stateDirectory
        self.familyFile = familyFile
        self.keysDirectory = keysDirectory
        self.secretKeyFile = secretKeyFile ?? stateDirectory + "/broker.key"
        self.heartbeatInterval = heartbeatInterval
        self.subscriberHighWaterMark = subscriberHighWaterMark
    }

    /// The operators' admin socket (ipc, owner-only): `hearthctl admin` talks to it.
    public var adminSocket: String { stateDirectory + "/admin.sock" }
    /// The SQLite database.
    public var databasePath: String { stateDirectory + "/broker.sqlite" }
    /// Written once the broker listens: the bound endpoints and its public key, as JSON (`BrokerReady`).
    public var readyFile: String { stateDirectory + "/broker.ready.json" }
}

/// The contents of the broker's ready file.
public struct BrokerReady: Codable, Sendable, Equatable {
    public var ingress: String
    public var egress: String
    public var publicKey: String
    public var pid: Int32
}
