public import HearthCore

/// Who the broker says this device is (from its `welcome`).
public struct DeviceIdentity: Sendable, Equatable {
    public var familyID: FamilyID?
    public var memberID: MemberID
    public var deviceID: DeviceID
    public var role: MemberRole
    /// The protocol version the broker negotiated (`welcome`): what this device may send it.
    public var version: UInt8 = 1
}
