public import NIOCore
public import NIOPosix
import Synchronization

/// A byte relay on a loopback port in front of one of the broker's ports, so a fleet can cut a device off its broker
/// and restore it. CURVE runs end to end between device and broker, so the relay is transparent to both.
///
/// `cut()` drops every live connection and closes each new one at once (the device sees its peer vanish and keeps
/// reconnecting); `blackhole()` keeps every connection, live and new, open but forwards nothing either way, not even a
/// close (a network partition that drops packets: neither end learns anything); `restore()` ends either, delivering
/// what a blackhole held back. `retarget(to:)` moves it to another upstream port (a database failing over to its
/// standby behind one address).
public final class TCPRelay: Sendable {
    /// The loopback port devices connect to.
    public let port: Int
    /// The port it relays new connections to, on 127.0.0.1.
    public var upstreamPort: Int { state.withLock { $0.upstreamPort } }

    private struct State {
        var upstreamPort: Int
        var isCut = false
        var live: [ObjectIdentifier: any Channel] = [:]
    }

    private let state: Mutex<State>
    private let server: any Channel
    private let blackholed = GlueHandler.Blackhole()

    private init(port: Int, upstreamPort: Int, server: any Channel) {
        self.port = port
        self.state = Mutex(State(upstreamPort: upstreamPort))
        self.server = server
    }

    /// Listens on a free loopback port and relays each connection to `127.0.0.1:upstreamPort`.
    public static func start(
        upstreamPort: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> TCPRelay {
        let box = RelayBox()
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { inbound in
                guard let relay = box.relay, !relay.isCut else { return inbound.close() }
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .connect(host: "127.0.0.1", port: relay.upstreamPort)
                    .flatMapThrowing { outbound in
                        let (a, b) = GlueHandler.matchedPair(blackhole: relay.blackholed)
                        try inbound.pipeline.syncOperations.addHandler(a)
                        try outbound.pipeline.syncOperations.addHandler(b)
                        relay.track(inbound)
                        relay.track(outbound)
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let relay = TCPRelay(port: server.localAddress?.port ?? 0, upstreamPort: upstreamPort, server: server)
        box.relay = relay
        return relay
    }

    /// The endpoint a device connects to: `tcp://127.0.0.1:PORT`.
    public var endpoint: String { "tcp://127.0.0.1:\(port)" }

    public var isCut: Bool { state.withLock { $0.isCut } }

    /// Connections relayed now (each device connection counts twice: its side and the broker's).
    public var liveConnections: Int { state.withLock { $0.live.count } }

    /// Drops every live connection and refuses new ones until `restore()`.
    public func cut() async {
        let live = state.withLock { state in
            state.isCut = true
            return Array(state.live.values)
        }
        for channel in live { try? await channel.close() }
    }

    /// Relays new connections to `upstreamPort` from now on and drops the live ones (their upstream is gone, or is
    /// no longer the one to talk to), as a virtual address moved to another host would.
    public func retarget(to upstreamPort: Int) async {
        let live = state.withLock { state in
            state.upstreamPort = upstreamPort
            return Array(state.live.values)
        }
        for channel in live { try? await channel.close() }
    }

    public var isBlackholed: Bool { blackholed.isOn }

    /// Stops forwarding bytes and closes on every connection, live and new, while keeping them open, until `restore()`.
    public func blackhole() {
        blackholed.set(true)
    }

    /// Lets new connections through again, and bytes and closes on blackholed ones.
    public func restore() {
        state.withLock { $0.isCut = false }
        guard blackholed.isOn else { return }
        blackholed.set(false)
        for channel in state.withLock({ Array($0.live.values) }) {
            channel.pipeline.fireUserInboundEventTriggered(GlueHandler.Resume())
        }
    }

    /// Stops listening and drops every connection; the port is free again when this returns.
    public func close() async {
        let live = state.withLock { state in
            state.isCut = true
            return Array(state.live.values)
        }
        try? await server.close()
        for channel in live { try? await channel.close() }
    }

    private func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let isCut = state.withLock { state in
            state.live[id] = channel
            return state.isCut
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLock { $0.live.removeValue(forKey: id) }
        }
        // Connected while a cut was under way: drop it like the others.
        if isCut { channel.close(promise: nil) }
    }
}

/// Lets the accept handler reach the relay, which exists only once the listener is bound.
private final class RelayBox: Sendable {
    private let stored = Mutex<TCPRelay?>(nil)
    var relay: TCPRelay? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
