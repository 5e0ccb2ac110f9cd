import HearthCore
public import Logging
public import ServiceLifecycle
import UnixSignals

/// Runs a daemon's service until SIGTERM or SIGINT, with its ops endpoint and the shutdown bound.
public enum DaemonRunner {
    /// EX_CONFIG (sysexits.h): the configuration was refused.
    public static let exitConfiguration: Int32 = 78
    /// EX_SOFTWARE: the shutdown bound passed before the daemon finished stopping.
    public static let exitShutdownTimeout: Int32 = 70

    /// Runs `service` and, if given, `ops`; on SIGTERM or SIGINT the service stops reading, finishes what it has
    /// read, and the process exits within `shutdownTimeout`.
    public static func run(
        _ service: some Service, ops: OpsServer?, shutdownTimeout: Duration, logger: Logger
    ) async throws {
        // Every connection takes a descriptor: the soft limit a service manager gives (1,024) is not the bound.
        FileLimit.raiseAndReport(logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        // Shut down in reverse order: the watchdog arms first, the ops endpoint answers until the service is done.
        if let ops { services.append(.init(service: ops)) }
        services.append(.init(service: service))
        services.append(.init(service: ShutdownWatchdog(bound: shutdownTimeout, ops: ops, logger: logger)))
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Past this the group cancels the services. No maximumCancellationDuration: ServiceLifecycle ends the process
        // with a fatal error when it passes; the watchdog ends it cleanly at the bound itself instead.
        configuration.maximumGracefulShutdownDuration = max(shutdownTimeout - .seconds(1), shutdownTimeout * 0.6)
        try await ServiceGroup(configuration: configuration).run()
    }
}
