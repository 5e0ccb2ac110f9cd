import Foundation
import Synchronization

/// Simulated devices that connect, authenticate, say hello and subscribe, then only hold their connections (and
/// answer nothing): for counting connections and the broker's memory with many devices.
public final class DeviceSwarm: Sendable {
    private let control: RunControl

    private init(control: RunControl) {
        self.control = control
    }

    /// Connects every device of `families` over `shards` threads; returns once all are welcomed and subscribed.
    /// `progress` is called every `progressInterval` with the devices welcomed and subscribed so far.
    public static func connect(
        target: LoadTarget, families: [SimulatedFamily], shards: Int, timeout: Duration,
        progressInterval: Duration = .seconds(5),
        progress: (@Sendable (_ welcomed: Int, _ subscribed: Int) -> Void)? = nil
    ) async throws -> DeviceSwarm {
        let count = max(1, min(shards, families.count))
        let control = RunControl(shards: count)
        let plan = LoadPlan(mode: .connectOnly, connectTimeout: timeout)
        var first = 0
        for s in 0..<count {
            let n = families.count / count + (s < families.count % count ? 1 : 0)
            LoadShard(
                index: s, target: target, families: Array(families[first..<(first + n)]), plan: plan, control: control,
                runTag: 1, share: 0
            ).start()
            first += n
        }
        let swarm = DeviceSwarm(control: control)
        var nextProgress = ContinuousClock.now + progressInterval
        while control.ready.load(ordering: .relaxed) < count {
            if let progress, ContinuousClock.now >= nextProgress {
                nextProgress += progressInterval
                progress(control.welcomed.load(ordering: .relaxed), control.subscribed.load(ordering: .relaxed))
            }
            if let failure = control.failure.withLock({ $0 }) {
                let result = await swarm.disconnect()
                throw LoadError(
                    "\(failure) (in all: \(result.welcomed) of \(result.devices) welcomed, \(result.subscribed) subscribed)"
                )
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return swarm
    }

    /// Closes every connection; returns the devices' counts.
    public func disconnect() async -> ShardResult {
        control.stop.store(true, ordering: .relaxed)
        while control.finished.load(ordering: .relaxed) < control.shards {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return ShardResult.merged(control.results.withLock { $0 })
    }
}
