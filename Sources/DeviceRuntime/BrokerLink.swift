package import HearthProtocol

/// A device's link to its broker as a state machine: the runtime feeds it what happened (a handshake event, a welcome,
/// a sync's end, a lost request) and does what the returned value says. No I/O, so every transition is unit-tested.
///
/// ```
/// connecting ─welcomed─▶ catchingUp ─caughtUp─▶ linked ─lost─▶ brokerGone ─welcomed─▶ catchingUp
/// any ─handshakeRefused─▶ keyRefused ─handshakeSucceeded─▶ connecting (never welcomed) or brokerGone
/// any ─refused─▶ refused ─welcomed─▶ catchingUp;  catchingUp ─lost─▶ brokerGone
/// any ─moved─▶ connecting (never welcomed) or brokerGone
/// linked ─handshakeSucceeded (a new connection)─▶ linked, hello wanted in place of the next ping
/// ```
/// Syncing runs beside the phase: a sync wanted while one runs makes that one run once more when it ends.
/// Which broker the link is to runs beside it too (`route`): a redirect or an unreachable broker moves it.
package struct BrokerLink: Sendable, Equatable {
    package enum Phase: Sendable, Equatable {
        /// No welcome yet in this run: saying hello until one comes.
        case connecting
        /// The broker's ZAP handler refused this device's key: it is not enrolled.
        case keyRefused
        /// The broker answered a link command (hello, sync, ping) with an error, e.g. no common protocol version.
        case refused(ErrorReply)
        /// Welcomed; fetching what was missed before calling the link up.
        case catchingUp
        /// Welcomed, caught up, pings answered.
        case linked
        /// Was welcomed, then a request went unanswered: saying hello again.
        case brokerGone
    }

    package enum Sync: Sendable, Equatable {
        case idle
        case running
        /// Running, and wanted again since it started.
        case runningAgain
    }

    package private(set) var phase: Phase = .connecting
    package private(set) var sync: Sync = .idle
    /// The broker's word on who this device is, from the last welcome; kept while the link is down.
    package private(set) var identity: DeviceIdentity?
    /// The broker the link is to, among the configured ones and the owners redirects named.
    package private(set) var route: BrokerRoute
    /// CURVE handshakes that succeeded on the link, and how many had when the last welcome came: one more is a new
    /// connection, perhaps to a broker that restarted and forgot the version this device negotiated.
    private var handshakes = 0
    private var welcomedAfter = 0
    /// A new connection was made since the last welcome: the next ping is a hello instead.
    package private(set) var helloWanted = false

    /// A link to the first of `brokers` (never empty).
    package init(brokers: [BrokerAddress]) {
        route = BrokerRoute(brokers)
    }

    package var isLinked: Bool { phase == .linked }
    package var isKeyRefused: Bool { phase == .keyRefused }

    // MARK: handshakes (the DEALER's monitor)

    /// The broker refused the key. Returns true when this is news (worth one log line, not one per retry).
    package mutating func handshakeRefused() -> Bool {
        defer { phase = .keyRefused }
        return phase != .keyRefused
    }

    /// A CURVE handshake succeeded: the key is accepted (the welcome decides the rest). Returns true when it is a
    /// new connection of a link that was welcomed on an earlier one: the broker may have restarted, and would count
    /// this device as protocol version 1 until its next hello, so the link says hello again (`helloWanted`) in place
    /// of its next ping, staying up meanwhile.
    package mutating func handshakeSucceeded() -> Bool {
        handshakes += 1
        if phase == .keyRefused {
            phase = identity == nil ? .connecting : .brokerGone
            return false
        }
        // The first connection's event may come after its welcome: only a later one counts.
        guard handshakes > max(welcomedAfter, 1), phase == .linked || phase == .catchingUp else { return false }
        helloWanted = true
        return true
    }

    // MARK: hello and sync

    /// The broker welcomed this device: catch up next.
    package mutating func welcomed(_ identity: DeviceIdentity) {
        self.identity = identity
        welcomedAfter = max(handshakes, 1)
        helloWanted = false
        phase = .catchingUp
    }

    /// The broker answered a link command with an error.
    package mutating func refused(_ error: ErrorReply) {
        phase = .refused(error)
    }

    /// The first sync after a welcome reached the head. Returns true when the link just came up.
    package mutating func caughtUp() -> Bool {
        guard phase == .catchingUp else { return false }
        phase = .linked
        return true
    }

    /// A request to the broker failed (timeout, pong missing). Returns true when a live link was just lost.
    package mutating func lost() -> Bool {
        switch phase {
        case .linked, .catchingUp:
            let wasLinked = phase == .linked
            phase = .brokerGone
            return wasLinked
        case .connecting, .keyRefused, .refused, .brokerGone:
            return false
        }
    }

    /// Something shows events are missing (a gap, a head ahead). Returns true when a sync should start now.
    package mutating func syncWanted() -> Bool {
        switch sync {
        case .idle:
            sync = .running
            return true
        case .running, .runningAgain:
            sync = .runningAgain
            return false
        }
    }

    /// The running sync ended. Returns true when it should run once more.
    package mutating func syncEnded() -> Bool {
        switch sync {
        case .idle, .running:
            sync = .idle
            return false
        case .runningAgain:
            sync = .running
            return true
        }
    }

    // MARK: which broker

    /// A broker answered with a redirect to `owner`, holder of `partition`'s lease at `epoch`. Returns the broker to
    /// reconnect to: the owner, or for a stale redirect (lower epoch than one followed) the next broker; nil to stay.
    package mutating func redirected(to owner: BrokerAddress, partition: UInt32, epoch: UInt64) -> BrokerAddress? {
        switch route.follow(owner, partition: partition, epoch: epoch) {
        case .moved: return move()
        case .alreadyThere: return nil
        case .stale: return route.unreachable() ? move() : nil
        }
    }

    /// The broker the link is to did not answer. Returns the broker to reconnect to, or nil when there is no other
    /// (one configured broker and no redirect: ZeroMQ keeps reconnecting to it).
    package mutating func unreachable() -> BrokerAddress? {
        route.unreachable() ? move() : nil
    }

    /// The link leaves its broker for `route.target`: hello again there.
    private mutating func move() -> BrokerAddress {
        phase = identity == nil ? .connecting : .brokerGone
        return route.target
    }
}
