public import HearthCore

/// One checked command: who sent it, as the CURVE handshake authenticated them, and what they ask.
public struct BrokerRequest: Sendable {
    /// The device, from the connection's ZAP `User-Id`: never from a field of the message.
    public var deviceID: DeviceID
    /// The device's member when the command was checked; the transaction checks it again against its directory.
    public var memberID: MemberID
    public var command: BrokerCommand

    public init(deviceID: DeviceID, memberID: MemberID, command: BrokerCommand) {
        self.deviceID = deviceID
        self.memberID = memberID
        self.command = command
    }
}
