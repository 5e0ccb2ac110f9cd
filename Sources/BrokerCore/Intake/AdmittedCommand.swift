public import HearthCore

/// One command as read from the ingress socket and admitted by the gate: who sent it (the connection's, never the
/// message's word) and its one frame, not decoded yet.
public struct AdmittedCommand: Sendable {
    public var routingID: [UInt8]
    /// The CURVE-authenticated device (ZAP `User-Id`); nil if the connection carried none.
    public var deviceID: DeviceID?
    public var frame: [UInt8]

    public init(routingID: [UInt8], deviceID: DeviceID?, frame: [UInt8]) {
        self.routingID = routingID
        self.deviceID = deviceID
        self.frame = frame
    }
}
