package import HearthCore
import HearthProtocol
import Synchronization

/// The protocol version each device negotiated in its last `hello` since the broker started, so that a reply holds
/// only what that device reads (a `historyPage` without the kinds of a later version). A device not heard from since
/// the broker started counts as version 1 until its next `hello`: a newer device then misses only what version 3
/// adds, where an older one would fail to decode the page.
package final class DeviceVersions: Sendable {
    private let versions = Mutex<[DeviceID: UInt8]>([:])

    package init() {}

    package func record(_ version: UInt8, for device: DeviceID) { versions.withLock { $0[device] = version } }

    /// The version `device` negotiated; `Wire.minimumVersion` for a device with no `hello` since the start.
    package func version(of device: DeviceID?) -> UInt8 {
        guard let device else { return Wire.minimumVersion }
        return versions.withLock { $0[device] } ?? Wire.minimumVersion
    }

    /// True when each of `devices` negotiated `version` or later since the broker started (and there is one).
    package func all(_ devices: [DeviceID], read version: UInt8) -> Bool {
        guard !devices.isEmpty else { return false }
        return versions.withLock { known in devices.allSatisfy { (known[$0] ?? Wire.minimumVersion) >= version } }
    }

    /// Those of `members` each of whose devices in `directory` negotiated `version` or later: one pass over the
    /// directory's devices, however many members are asked about.
    package func readers(of version: UInt8, among members: Set<MemberID>, in directory: Directory) -> Set<MemberID> {
        var devices: [MemberID: [DeviceID]] = [:]
        for device in directory.devices.values where members.contains(device.memberID) {
            devices[device.memberID, default: []].append(device.id)
        }
        return members.filter { all(devices[$0] ?? [], read: version) }
    }
}
