import Benchmark
import BrokerCore
import BrokerSQLite
import FamilyBroker
import Foundation
import HearthCore
import HearthProtocol
import Logging
import ZeroMQ

// Microbenchmarks (ordo-one/benchmark): `swift package --package-path Benchmarks benchmark`. The whole-broker figures
// come from `hearth-loadtest` (docs/PERFORMANCE.md); these isolate the pieces of one cycle.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], warmupIterations: 3, maxDuration: .seconds(2),
        maxIterations: 1_000_000)

    let question = Question(
        topic: .communication(
            CommunicationTopic(
                personInformation: [
                    PersonInformation(handle: CommunicationHandle(value: "dragonslayer42", kind: .custom))
                ], actions: [.message])))
    let asked = AskedQuestion(
        question: question, childMemberID: "emma", appBundleID: "com.example.chat", askingDeviceID: "emma-tablet",
        askedAt: Date())
    let resolution = Resolution(
        questionID: question.id, choice: .approve, reason: .parentAnswered, answeredBy: "alice", resolvedAt: Date())
    let ask = Message.ask(appBundleID: "com.example.chat", question: question)
    let askFrame = MessageCodec.encode(ask, requestID: 7)
    let event = Message.event(
        Event(memberID: "emma", sequence: 9, createdAt: Date(), body: .questionResolved(asked, resolution)))
    let eventFrame = MessageCodec.encode(event)

    Benchmark("codec: encode ask") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(MessageCodec.encode(ask, requestID: 7)) }
    }
    Benchmark("codec: decode ask") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try? MessageCodec.decode(askFrame)) }
    }
    Benchmark("codec: encode questionResolved event") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(MessageCodec.encode(event)) }
    }
    Benchmark("codec: decode questionResolved event") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try? MessageCodec.decode(eventFrame)) }
    }

    // The binding's per-message cost without a network: a PAIR over inproc, send then receive on one thread.
    Benchmark("binding: send + receive 100 B (PAIR, inproc)") { benchmark in
        guard let pair = try? InprocPair() else { return }
        let payload = [UInt8](repeating: 0x61, count: 100)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            _ = try? pair.a.send([payload])
            blackHole(try? pair.b.receive())
        }
        benchmark.stopMeasurement()
        pair.close()
    }

    // Policy decisions the broker makes per command, without SQL: who is a child today (birth date in the member's
    // time zone against the region's age of majority), the age-appropriate defaults, and a declared age range.
    let policyDirectory = try? PolicyBench.directory()
    Benchmark("policy: is a child (birth date, time zone, region)") { benchmark in
        guard let directory = policyDirectory, let child = directory.members["c"] else { return }
        let now = Date()
        for _ in benchmark.scaledIterations { blackHole(directory.isChild(child, on: now)) }
    }
    Benchmark("policy: age-appropriate Communication Limits defaults") { benchmark in
        let defaults = ChildDefaults.builtIn
        for i in benchmark.scaledIterations { blackHole(defaults.settings(forAge: i % 18)) }
    }
    Benchmark("policy: declared age range (gates 13, 16, 18)") { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(
                AgeRangeRules.range(
                    age: 10 + i % 10, gates: [13, 16, 18], ageOfMajority: 19, inFamily: true,
                    communicationLimitsOn: true))
        }
    }

    // Policy, SQL and one synchronous=FULL commit: the same asks one per transaction and 64 per transaction.
    for batch in [1, 64] {
        Benchmark(
            "engine: \(batch) ask(s) per group commit",
            configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(3))
        ) { benchmark in
            guard let bench = try? EngineBench() else { return }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(await bench.asks(batch)) }
            benchmark.stopMeasurement()
            bench.remove()
        }
    }
}

/// Two connected PAIR sockets in a context of their own.
final class InprocPair {
    let context: ZMQContext
    let a: ZMQSocket
    let b: ZMQSocket

    init() throws {
        context = try ZMQContext()
        a = try ZMQSocket(context: context, type: .pair)
        b = try ZMQSocket(context: context, type: .pair)
        try b.bind("inproc://bench")
        try a.connect("inproc://bench")
    }

    func close() {
        try? a.setLinger(milliseconds: 0)
        try? b.setLinger(milliseconds: 0)
        a.close()
        b.close()
        context.terminate()
    }
}

/// A directory of one family (organizer `p`, child `c` born 2016-01-01 in Korea, in Seoul's time zone).
enum PolicyBench {
    static func directory() throws -> Directory {
        let directory = NSTemporaryDirectory() + "hearth-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = try familyFile(region: "KR", timeZone: "Asia/Seoul")
        return try Directory(file: file, keysDirectory: directory, source: "bench")
    }

    /// Family `f`: organizer `p` (device `pd`) and child `c` born 2016-01-01 (device `cd`), both in `region`.
    static func familyFile(region: String, timeZone: String? = nil) throws -> FamilyFile {
        FamilyFile(families: [
            FamilyFile.Family(
                id: "f",
                members: [
                    FamilyFile.Member(
                        id: "p", role: "organizer", region: region,
                        devices: [.init(id: "pd", publicKey: try CurveKeyPair.generate().publicKey)]),
                    FamilyFile.Member(
                        id: "c", role: "child", birthDate: "2016-01-01", region: region, timeZone: timeZone,
                        devices: [.init(id: "cd", publicKey: try CurveKeyPair.generate().publicKey)]),
                ])
        ])
    }
}

/// A broker engine over a real database file (WAL, synchronous=FULL) with one family: organizer `p` and child `c`.
final class EngineBench {
    let directory: String
    let engine: BrokerEngine
    var counter = 0

    init() throws {
        directory = NSTemporaryDirectory() + "hearth-bench-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = try PolicyBench.familyFile(region: "US")
        let store = try BrokerStore(path: directory + "/broker.sqlite")
        var defaults = ChildDefaults.builtIn
        defaults.askLimit = .init(count: 1_000_000_000, perSeconds: 1)
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        engine = BrokerEngine(
            store: store, directory: DirectoryBox(try Directory(file: file, keysDirectory: directory, source: "bench")),
            sequences: SequenceBook(try store.heads()), logger: logger, policy: BrokerPolicy(childDefaults: defaults))
    }

    /// `count` asks from the child about new handles, in one batch.
    func asks(_ count: Int) async -> Int {
        var commands: [CommandIntake.Inbound] = []
        for _ in 0..<count {
            counter += 1
            let question = Question(
                topic: .communication(
                    CommunicationTopic(
                        personInformation: [
                            PersonInformation(handle: CommunicationHandle(value: "h\(counter)", kind: .custom))
                        ], actions: [.message])))
            let frame = MessageCodec.encode(
                .ask(appBundleID: "com.example.chat", question: question), requestID: UInt64(counter))
            commands.append(.init(routingID: [0, 0, 0, 1], deviceID: "cd", frame: frame))
        }
        return await CommandIntake(engine: engine).process(commands).replies.count
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
