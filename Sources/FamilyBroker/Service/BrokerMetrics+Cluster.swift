import Metrics

extension BrokerMetrics {
    /// On a cluster: how many partitions this broker serves, and the lease epoch of each (0 for one it does not
    /// serve), for `/metrics` and `hearthctl status`.
    func recordPartitions(_ served: [Int: UInt64], of count: Int) {
        Gauge(label: "hearth_broker_partitions_owned").record(served.count)
        for partition in 0..<count {
            Gauge(label: "hearth_broker_partition_epoch", dimensions: [("partition", "\(partition)")])
                .record(Int64(clamping: served[partition] ?? 0))
        }
    }
}
