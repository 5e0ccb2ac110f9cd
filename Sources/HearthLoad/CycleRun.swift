import Foundation
import Histogram
import Synchronization

/// Runs simulated families against one target: connects every device, offers the load, prints a progress line
/// every second, and returns the report.
public struct CycleRun: Sendable {
    public var shape: LoadShape
    public var plan: LoadPlan
    public var shards: Int
    public var target: LoadTarget
    public var families: [SimulatedFamily]
    /// Where progress lines go; nil for none.
    public var progress: (@Sendable (String) -> Void)?
    /// The broker's database server (a PostgreSQL postmaster), whose CPU with its backends' is reported too.
    public var databasePID: Int32?

    public init(
        shape: LoadShape, plan: LoadPlan, shards: Int, target: LoadTarget, families: [SimulatedFamily],
        progress: (@Sendable (String) -> Void)?
    ) {
        self.shape = shape
        self.plan = plan
        self.shards = shards
        self.target = target
        self.families = families
        self.progress = progress
    }

    public func run() async throws -> CycleReport {
        let shardCount = max(1, min(shards, families.count))
        let control = RunControl(shards: shardCount)
        startShards(shardCount, control: control)
        try await waitConnected(shardCount, control: control)

        let start = monotonicNanoseconds() + 20_000_000
        control.startNanoseconds.store(start, ordering: .relaxed)
        let begin = ContinuousClock.now + .milliseconds(20)
        let window = Window(begin: begin, start: begin + plan.warmup, end: begin + plan.warmup + plan.duration)
        let sampler = sample(from: window.start, to: window.end)
        let timeline = try await watch(control, window: window)
        if ContinuousClock.now < window.end { sampler.cancel() }
        let samples = await sampler.value
        if let failure = control.failure.withLock({ $0 }) { throw LoadError(failure) }
        let total = ShardResult.merged(control.results.withLock { $0 })
        var report = makeReport(total: total, shardCount: shardCount, samples: samples)
        report.latencyHistogram = total.latency
        report.timeline = timeline
        return report
    }

    /// The run's phases: warm-up from `begin` to `start`, the measured window to `end`, then the drain.
    private struct Window {
        var begin: ContinuousClock.Instant
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant

        func phase(at now: ContinuousClock.Instant) -> String {
            now < start ? "warm-up" : now < end ? "measure" : "drain"
        }
    }

    /// Prints a progress line every second until every shard has finished; returns the per-second timeline.
    private func watch(_ control: RunControl, window: Window) async throws -> [CycleReport.Second] {
        let shardCount = control.shards
        var lastCompleted = 0
        var tick = window.begin
        var timeline: [CycleReport.Second] = []
        var lastSample = ProcessSample.read(target.pid)
        while control.finished.load(ordering: .relaxed) < shardCount {
            tick = tick + .seconds(1)
            while ContinuousClock.now < tick, control.finished.load(ordering: .relaxed) < shardCount {
                try? await Task.sleep(for: .milliseconds(20))
            }
            let now = ContinuousClock.now
            let completed = control.completed.load(ordering: .relaxed)
            let elapsed = Self.seconds(now - window.begin)
            progress?(
                progressLine(control, elapsed: elapsed, phase: window.phase(at: now), done: completed - lastCompleted))
            let sample = ProcessSample.read(target.pid)
            // The last pass ends when the shards finish, mid-second: a partial second would plot as a plunge.
            if now >= tick {
                timeline.append(
                    .init(
                        seconds: elapsed, phase: window.phase(at: now), cycles: completed - lastCompleted,
                        cpuPercent: ProcessSample.cpuPercent(from: lastSample, to: sample)))
            }
            lastSample = sample
            lastCompleted = completed
            if now > window.end + plan.drainTimeout + .seconds(30) {
                control.fail("shards did not finish 30 s after the drain timeout")
            }
        }
        return timeline
    }

    /// One second's progress line; takes (and resets) the interval's latency histogram.
    private func progressLine(_ control: RunControl, elapsed: Double, phase: String, done: Int) -> String {
        let interval = control.interval.withLock { h in
            defer { h.reset() }
            return h
        }
        return String(
            format:
                "%5.1fs \(phase)  sent %d  done %d  %.0f cycles/s  p50 %.2f ms  p99 %.2f ms  max %.2f ms  errors %d",
            elapsed, control.sent.load(ordering: .relaxed), control.completed.load(ordering: .relaxed), Double(done),
            Double(interval.valueAtPercentile(50)) / 1000, Double(interval.valueAtPercentile(99)) / 1000,
            Double(interval.totalCount == 0 ? 0 : interval.max) / 1000, control.errors.load(ordering: .relaxed))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The report's figures from the merged shard results and the window's CPU samples.
    private func makeReport(total: ShardResult, shardCount: Int, samples: Samples) -> CycleReport {
        let (serverStart, serverEnd) = samples.server
        let (selfStart, selfEnd) = samples.generator
        let seconds = Self.seconds(plan.duration)
        let end = ProcessSample.read(target.pid) ?? serverEnd
        let (mode, rate, inFlight): (String, Double?, Int?) =
            switch plan.mode {
            case .open(let rate): ("open", rate, nil)
            case .closed(let n): ("closed", nil, n)
            case .connectOnly: ("connect", nil, nil)
            }
        return CycleReport(
            target: target.kind.rawValue, mode: mode, targetRate: rate, inFlight: inFlight, families: families.count,
            childrenPerFamily: shape.children, parentsPerFamily: shape.parents, devices: total.devices,
            shards: shardCount,
            warmupSeconds: Double(plan.warmup.components.seconds), durationSeconds: seconds,
            thinkTimeMilliseconds: Double(plan.thinkTime.nanoseconds) / 1e6, cycles: total.completedInWindow,
            sent: total.sentInWindow,
            cyclesPerSecond: Double(total.completedInWindow) / seconds, latencyMicroseconds: .init(total.latency),
            errors: total.errors, lost: total.lost, duplicated: total.duplicated, redelivered: total.redelivered,
            gapsSynced: total.gapsSynced, messages: total.messagesInWindow,
            server: .init(
                pid: target.pid, cpuPercent: ProcessSample.cpuPercent(from: serverStart, to: serverEnd),
                residentMiB: end.map { Double($0.residentKiB) / 1024 },
                peakResidentMiB: end.map { Double($0.peakResidentKiB) / 1024 }),
            generatorCPUPercent: ProcessSample.cpuPercent(from: selfStart, to: selfEnd),
            errorSamples: total.errorSamples,
            database: databasePID.map { pid in
                CycleReport.ProcessFigures(
                    pid: pid, cpuPercent: ProcessSample.cpuPercent(from: samples.database.0, to: samples.database.1),
                    residentMiB: nil, peakResidentMiB: nil)
            })
    }

    /// Starts the shards, each with its share of the families and of the load.
    private func startShards(_ shardCount: Int, control: RunControl) {
        let runTag = UInt32.random(in: 1...UInt32.max)
        var first = 0
        for s in 0..<shardCount {
            let count = families.count / shardCount + (s < families.count % shardCount ? 1 : 0)
            let fraction = Double(count) / Double(families.count)
            let share: Double =
                switch plan.mode {
                case .open(let rate): rate * fraction
                case .closed(let inFlight): Double(inFlight / shardCount + (s < inFlight % shardCount ? 1 : 0))
                case .connectOnly: 0
                }
            LoadShard(
                index: s, target: target, families: Array(families[first..<(first + count)]), plan: plan,
                control: control, runTag: runTag, share: share
            ).start()
            first += count
        }
    }

    /// Waits until every shard's devices are welcomed and subscribed.
    private func waitConnected(_ shardCount: Int, control: RunControl) async throws {
        let connectStart = ContinuousClock.now
        while control.ready.load(ordering: .relaxed) < shardCount {
            if let failure = control.failure.withLock({ $0 }) {
                await waitFinished(control)
                throw LoadError("devices could not connect: \(failure)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let devices = families.count * shape.devicesPerFamily
        progress?("connected \(devices) devices (\(shardCount) shards) in \(ContinuousClock.now - connectStart)")
    }

    /// CPU over exactly the measured window, sampled apart from the progress lines.
    private func sample(
        from windowStart: ContinuousClock.Instant, to windowEnd: ContinuousClock.Instant
    ) -> Task<Samples, Never> {
        let pid = target.pid
        let database = databasePID
        return Task {
            try? await Task.sleep(until: windowStart, clock: .continuous)
            let server0 = ProcessSample.read(pid)
            let self0 = ProcessSample.read(getpid())
            let database0 = database.flatMap(ProcessSample.readTree)
            try? await Task.sleep(until: windowEnd, clock: .continuous)
            return Samples(
                server: (server0, ProcessSample.read(pid)), generator: (self0, ProcessSample.read(getpid())),
                database: (database0, database.flatMap(ProcessSample.readTree)))
        }
    }

    /// CPU samples at the window's start and end.
    private struct Samples: Sendable {
        var server: (ProcessSample?, ProcessSample?)
        var generator: (ProcessSample?, ProcessSample?)
        var database: (ProcessSample?, ProcessSample?)
    }

    private func waitFinished(_ control: RunControl) async {
        control.stop.store(true, ordering: .relaxed)
        while control.finished.load(ordering: .relaxed) < control.shards {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
