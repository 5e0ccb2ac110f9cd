import Metrics
public import Prometheus
import Synchronization

/// The process's metrics: swift-metrics reports into one Prometheus registry, served as text on `/metrics`.
public enum MetricsExport {
    /// The registry every swift-metrics counter, gauge, timer and recorder of this process reports to.
    public static let registry = PrometheusCollectorRegistry()
    private static let bootstrapped = Mutex(false)

    /// Makes swift-metrics report to `registry`. Idempotent; without it metrics go nowhere (as in unit tests).
    public static func bootstrap() {
        let first = bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        var factory = PrometheusMetricsFactory(registry: registry)
        // Commit latency: SQLite with synchronous=FULL takes from ~0.2 ms to tens of ms per transaction.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(1000),
        ]
        // Batch sizes: one command up to the I/O loop's 1,024 per socket and pass.
        factory.defaultValueHistogramBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096]
        MetricsSystem.bootstrap(factory)
    }

    /// Every metric in the Prometheus text exposition format (version 0.0.4).
    public static func render() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(4096)
        registry.emit(into: &buffer)
        return buffer
    }
}
