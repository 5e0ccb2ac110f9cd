#if PostgreSQL
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

#if canImport(Glibc)
import Glibc
#endif

extension PostgresConnection {
    /// How long connecting (TCP, then the server's start-up and authentication) may take.
    static let connectTimeout = TimeAmount.seconds(5)

    /// Opens a connection to `url` on a socket with TCP keepalive: idle for 10 s, the kernel probes the server every
    /// 5 s and closes the connection after 3 unanswered probes. postgres-nio sets no socket options, so the socket is
    /// ours. A server whose host vanished then fails an idle connection (the directory's `LISTEN`, an idle session)
    /// in about 25 s instead of never; statements in flight are bounded by the statement deadline (`result(of:)`).
    static func open(url: PostgresURL, password: String, id: Int, logger: Logger) -> EventLoopFuture<PostgresConnection>
    {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .keepAliveTiming(idle: 10, interval: 5, count: 3)
            .connect(host: url.host, port: url.port)
            .flatMap { channel in
                var configuration = Configuration(
                    establishedChannel: channel, username: url.user, password: password, database: url.database)
                configuration.options.connectTimeout = connectTimeout
                return connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
                    .flatMapErrorThrowing { error in
                        channel.close(promise: nil)
                        throw error
                    }
            }
    }
}

extension ClientBootstrap {
    /// When an idle connection's keepalive starts (seconds idle), how often it probes, and after how many unanswered
    /// probes the kernel drops the connection; Linux only (elsewhere the system's defaults, of hours).
    fileprivate func keepAliveTiming(idle: Int, interval: Int, count: Int) -> ClientBootstrap {
        #if os(Linux)
        return
            self
            .channelOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_KEEPIDLE)), value: idle)
            .channelOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_KEEPINTVL)), value: interval)
            .channelOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_KEEPCNT)), value: count)
        #else
        return self
        #endif
    }
}
#endif
