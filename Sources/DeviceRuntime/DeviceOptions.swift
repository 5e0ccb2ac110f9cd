import Foundation

/// How a device daemon reaches its broker and where it keeps its state.
public struct DeviceOptions: Sendable {
    /// The broker's ROUTER endpoint.
    public var brokerIngress: String
    /// The broker's XPUB endpoint.
    public var brokerEgress: String
    /// The broker's CURVE public key (Z85).
    public var brokerPublicKey: String
    /// This device's CURVE secret key file (0600); made on first run if missing, with its `.pub` beside it.
    public var secretKeyFile: String
    /// Directory for the device's SQLite database.
    public var stateDirectory: String
    /// Path of the local ipc socket (apps for child-device, people for parent-device); made 0600.
    public var localSocket: String
    /// How often the device pings the broker; a missed reply marks the link down and starts a reconnect.
    public var pingInterval: Duration

    public init(
        brokerIngress: String, brokerEgress: String, brokerPublicKey: String, secretKeyFile: String,
        stateDirectory: String,
        localSocket: String, pingInterval: Duration = .seconds(1)
    ) {
        self.brokerIngress = brokerIngress
        self.brokerEgress = brokerEgress
        self.brokerPublicKey = brokerPublicKey
        self.secretKeyFile = secretKeyFile
        self.stateDirectory = stateDirectory
        self.localSocket = localSocket
        self.pingInterval = pingInterval
    }

    public var databasePath: String { stateDirectory + "/device.sqlite" }
}
