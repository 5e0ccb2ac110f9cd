import Foundation

/// How a device daemon reaches its brokers and where it keeps its state.
public struct DeviceOptions: Sendable {
    /// The brokers, in the order the device tries them; never empty. A broker that does not own the device's family
    /// redirects it to the one that does.
    public var brokers: [BrokerAddress]
    /// This device's CURVE secret key file (0600); made on first run if missing, with its `.pub` beside it.
    public var secretKeyFile: String
    /// Directory for the device's SQLite database.
    public var stateDirectory: String
    /// Path of the local ipc socket (apps for child-device, people for parent-device); made 0600.
    public var localSocket: String
    /// How often the device pings the broker; a missed reply marks the link down and starts a reconnect.
    public var pingInterval: Duration

    /// Options for a device of one or more brokers (`brokers` must not be empty).
    public init(
        brokers: [BrokerAddress], secretKeyFile: String, stateDirectory: String, localSocket: String,
        pingInterval: Duration = .seconds(1)
    ) {
        precondition(!brokers.isEmpty, "a device needs at least one broker")
        self.brokers = brokers
        self.secretKeyFile = secretKeyFile
        self.stateDirectory = stateDirectory
        self.localSocket = localSocket
        self.pingInterval = pingInterval
    }

    /// Options for a device of one broker.
    public init(
        brokerIngress: String, brokerEgress: String, brokerPublicKey: String, secretKeyFile: String,
        stateDirectory: String,
        localSocket: String, pingInterval: Duration = .seconds(1)
    ) {
        self.init(
            brokers: [BrokerAddress(ingress: brokerIngress, egress: brokerEgress, publicKey: brokerPublicKey)],
            secretKeyFile: secretKeyFile, stateDirectory: stateDirectory, localSocket: localSocket,
            pingInterval: pingInterval)
    }

    public var databasePath: String { stateDirectory + "/device.sqlite" }
}
