/// Which broker a device talks to: its configured list, and the owner of its family once a broker redirected it.
/// No I/O; `BrokerLink` holds it and `DeviceRuntime` reconnects when `target` changes.
///
/// A device starts on the first configured broker; an unreachable one sends it to the next. A redirect names the
/// owner of the device's partition with the owner's lease epoch; a redirect with a lower epoch for the same partition
/// than one already followed comes from a broker that lost its lease and is ignored. When a followed owner is
/// unreachable the device goes back to the configured broker it came from, which redirects it to the new owner.
package struct BrokerRoute: Sendable, Equatable {
    /// The configured brokers, in order; never empty.
    package let configured: [BrokerAddress]
    /// The configured broker the device is on, or came from when on a redirect.
    package private(set) var index = 0
    /// The owner a redirect named, while the device is on it.
    package private(set) var owner: BrokerAddress?
    /// The highest epoch followed, per partition.
    package private(set) var epochs: [UInt32: UInt64] = [:]

    /// A route over `configured` (a list of one when empty is passed is the caller's bug: it traps).
    package init(_ configured: [BrokerAddress]) {
        precondition(!configured.isEmpty, "a device needs at least one broker")
        self.configured = configured
    }

    /// The broker to talk to now.
    package var target: BrokerAddress { owner ?? configured[index] }

    /// What a redirect did to the route.
    package enum Redirect: Sendable, Equatable {
        /// The device moves to the owner.
        case moved
        /// It names the broker the device is on (a second redirect of one move): nothing to do.
        case alreadyThere
        /// A lower epoch for its partition than one followed: from a broker that lost the lease; ignored.
        case stale
    }

    /// A broker redirected the device to `owner`, which holds `partition`'s lease at `epoch`.
    package mutating func follow(_ owner: BrokerAddress, partition: UInt32, epoch: UInt64) -> Redirect {
        if let followed = epochs[partition], epoch < followed { return .stale }
        epochs[partition] = epoch
        guard owner != target else { return .alreadyThere }
        self.owner = owner
        return .moved
    }

    /// The broker the device is on cannot be reached. Returns true when `target` changed: from a redirected owner back
    /// to the configured broker it came from, or to the next configured broker (after the last, the first again).
    package mutating func unreachable() -> Bool {
        if owner != nil {
            let before = target
            owner = nil
            return target != before
        }
        guard configured.count > 1 else { return false }
        index = (index + 1) % configured.count
        return true
    }
}
