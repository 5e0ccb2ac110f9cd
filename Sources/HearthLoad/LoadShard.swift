import CEpoll
import Foundation
import HearthCore
import HearthProtocol
import Histogram
import Synchronization
import ZeroMQ

/// A slice of the simulated families, run on one dedicated thread that owns their sockets: a CURVE DEALER (commands)
/// and a CURVE SUB (events) per device, each with the device's own key.
///
/// The thread is the load generator's own `SocketLoop`-like loop, not the cooperative pool: it polls, sends asks at
/// their intended times, answers as the parents after the think time, and timestamps each response as it is read,
/// with no hop through another thread that would add to the latency it measures.
public struct LoadShard: Sendable {
    public var index: Int
    public var target: LoadTarget
    public var families: [SimulatedFamily]
    public var plan: LoadPlan
    public var control: RunControl
    /// Tags this run's question ids (see `QuestionTag`).
    public var runTag: UInt32
    /// Open loop: this shard's share of the rate; closed loop: its share of the cycles in flight.
    public var share: Double

    public init(
        index: Int, target: LoadTarget, families: [SimulatedFamily], plan: LoadPlan, control: RunControl,
        runTag: UInt32, share: Double
    ) {
        self.index = index
        self.target = target
        self.families = families
        self.plan = plan
        self.control = control
        self.runTag = runTag
        self.share = share
    }

    /// Starts the shard's thread; it reports through `control`.
    public func start() {
        let shard = self
        let thread = Thread {
            let runner = ShardRunner(shard)
            runner.run()
        }
        thread.name = "load-shard-\(index)"
        thread.start()
    }
}

/// The state of a running shard; lives on the shard's thread only.
private final class ShardRunner {
    struct Device {
        var member: String
        var topic: [UInt8]
        var isChild: Bool
        var family: Int
        var lastSeq: UInt64 = 0
        var welcomed = false
        var subscribed = false
        var syncing = false
    }

    static let completed = UInt64.max
    static let failed = UInt64.max - 1
    // Request id kinds, in the top two bits; the low bits carry the question counter.
    static let askKind: UInt64 = 1 << 62
    static let answerKind: UInt64 = 2 << 62
    static let controlKind: UInt64 = 3 << 62
    static let kindMask: UInt64 = 3 << 62

    let shard: LoadShard
    let control: RunControl
    let relay: Bool
    let thinkNanoseconds: UInt64
    let context: ZMQContext
    var dealers: [ZMQSocket] = []
    var subs: [ZMQSocket] = []
    var devices: [Device] = []
    var children: [Int] = []
    var familyParents: [[Int]] = []
    /// epoll over every socket's `ZMQ_FD`: a pass costs what is active, not what is connected (as `zmq_poll` would).
    var epoll: Int32 = -1
    /// Sockets (2 × device + 0 for the DEALER, 1 for the SUB) to look at before sleeping again.
    var pending: [Int] = []
    var isPending: [Bool] = []

    /// Intended send time of every ask by counter, or `completed`/`failed`.
    var intended: [UInt64] = []
    var askedBy: [Int32] = []
    var answers: [(due: UInt64, parent: Int32, counter: UInt64)] = []
    var answersHead = 0
    var nextChild = 0
    var outstanding = 0
    var result = ShardResult()
    var windowStart: UInt64 = .max
    var windowEnd: UInt64 = .max
    /// The time of the loop's current pass: what decides whether a message sent or received counts in the window.
    private var passNow: UInt64 = 0

    init(_ shard: LoadShard) {
        self.shard = shard
        control = shard.control
        relay = shard.target.kind == .relay
        thinkNanoseconds = shard.plan.thinkTime.nanoseconds
        // A context per shard: its own libzmq I/O thread, and room for every device's two sockets.
        context = try! ZMQContext()
    }

    func run() {
        do {
            try setUp()
            try loop()
        } catch {
            control.fail("shard \(shard.index): \(error)")
        }
        finish()
    }

    private func setUp() throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw LoadError("epoll_create1: \(String(cString: strerror(errno)))") }
        try context.setMaxSockets(
            Int32(
                shard.families.count * 2 * (shard.families.first.map { $0.children.count + $0.parents.count } ?? 1) + 16
            ))
        for (f, family) in shard.families.enumerated() {
            var parents: [Int] = []
            for device in family.children + family.parents {
                let index = devices.count
                let topic = Wire.topic(for: device.member)
                let dealer = try ZMQSocket(context: context, type: .dealer)
                try dealer.setLinger(milliseconds: 0)
                try dealer.makeCurveClient(serverPublicKey: shard.target.serverKey, keys: device.keys)
                try dealer.setMaxMessageSize(Int64(Wire.maxCurveMessageSize))
                // ZMTP PINGs as a device daemon sends them (DeviceRuntime): the broker answers each one.
                try dealer.setHeartbeat(intervalMilliseconds: 2000, timeoutMilliseconds: 6000, ttlMilliseconds: 0)
                try dealer.connect(shard.target.ingress)
                let sub = try ZMQSocket(context: context, type: .sub)
                try sub.setLinger(milliseconds: 0)
                try sub.makeCurveClient(serverPublicKey: shard.target.serverKey, keys: device.keys)
                try sub.setMaxMessageSize(Int64(Wire.maxCurveMessageSize))
                try sub.setHeartbeat(intervalMilliseconds: 2000, timeoutMilliseconds: 6000, ttlMilliseconds: 0)
                // The broker grants only the member's own topic whatever is asked; the relay's PUB filters by prefix.
                try sub.subscribe(relay ? topic : [])
                try sub.connect(shard.target.egress)
                dealers.append(dealer)
                subs.append(sub)
                for (kind, socket) in [dealer, sub].enumerated() {
                    var event = epoll_event()
                    event.events = EPOLLIN.rawValue
                    event.data.u64 = UInt64(2 * index + kind)
                    guard epoll_ctl(epoll, EPOLL_CTL_ADD, try socket.fileDescriptor, &event) == 0 else {
                        throw LoadError("epoll_ctl: \(String(cString: strerror(errno)))")
                    }
                }
                devices.append(Device(member: device.member, topic: topic, isChild: device.isChild, family: f))
                if device.isChild { children.append(index) } else { parents.append(index) }
            }
            familyParents.append(parents)
        }
        result.devices = devices.count
        isPending = [Bool](repeating: false, count: 2 * devices.count)
        for index in devices.indices { greet(index) }
    }

    /// Broker: `hello`. Relay: a probe echoed on the DEALER and published on the device's own topic.
    private func greet(_ index: Int) {
        markPending(2 * index)
        if relay {
            _ = try? dealers[index].send(
                [devices[index].topic, MessageCodec.encode(.ping, requestID: Self.controlKind)], dontWait: true)
        } else {
            _ = try? dealers[index].send(
                [
                    MessageCodec.encode(
                        .hello(minVersion: Wire.minimumVersion, maxVersion: Wire.highestVersion),
                        requestID: Self.controlKind)
                ], dontWait: true)
        }
    }

    private var allReady: Bool { devices.allSatisfy { $0.welcomed && $0.subscribed } }

    private func loop() throws {
        let connectDeadline = monotonicNanoseconds() + shard.plan.connectTimeout.nanoseconds
        var lastGreeting = monotonicNanoseconds()
        var readyReported = false
        var started = false
        var asked: UInt64 = 0
        var runStart: UInt64 = 0
        var interval: Double = 0
        if case .open = shard.plan.mode { interval = 1e9 / max(shard.share, 1e-9) }
        let open = interval > 0
        let connectOnly = shard.plan.mode == .connectOnly

        while !control.stop.load(ordering: .relaxed) {
            let now = monotonicNanoseconds()
            passNow = now
            var deadline = now + 50_000_000
            if !readyReported {
                if allReady {
                    readyReported = true
                    control.ready.add(1, ordering: .relaxed)
                } else if now > connectDeadline {
                    throw LoadError(
                        "\(devices.filter(\.welcomed).count) of \(devices.count) devices welcomed and \(devices.filter(\.subscribed).count) subscribed within \(shard.plan.connectTimeout)"
                    )
                } else if relay, now - lastGreeting > 200_000_000 {
                    // PUB drops what it sends before the subscription arrives: probe again until it is through.
                    lastGreeting = now
                    for index in devices.indices where !devices[index].subscribed { greet(index) }
                }
            }
            if readyReported, !connectOnly, case let start = control.startNanoseconds.load(ordering: .relaxed),
                start != 0
            {
                if !started {
                    started = true
                    runStart = start
                    windowStart = start + shard.plan.warmup.nanoseconds
                    windowEnd = windowStart + shard.plan.duration.nanoseconds
                    if !open {
                        for _ in 0..<Int(shard.share.rounded()) { sendAsk(intended: max(now, start)) }
                    }
                }
                if open {
                    while true {
                        let due = runStart + UInt64(Double(asked) * interval)
                        guard due < windowEnd else { break }
                        if due > now {
                            deadline = min(deadline, due)
                            break
                        }
                        sendAsk(intended: due)
                        asked += 1
                    }
                }
                deadline = sendDueAnswers(now: now, deadline: deadline)
                if now >= windowEnd, outstanding == 0 || now >= windowEnd + shard.plan.drainTimeout.nanoseconds {
                    break
                }
            }
            poll(now: now, until: deadline)
        }
    }

    /// Sends the parents' answers that are due; returns `deadline`, or when the next answer is due if that is sooner.
    private func sendDueAnswers(now: UInt64, deadline: UInt64) -> UInt64 {
        var deadline = deadline
        while answersHead < answers.count {
            let next = answers[answersHead]
            if next.due > now {
                deadline = min(deadline, next.due)
                break
            }
            sendAnswer(parent: Int(next.parent), counter: next.counter)
            answersHead += 1
        }
        if answersHead > 4096, answersHead * 2 > answers.count {
            answers.removeFirst(answersHead)
            answersHead = 0
        }
        return deadline
    }

    /// Waits for socket events until `deadline` (not at all while reads are pending), then reads what is ready.
    private func poll(now: UInt64, until deadline: UInt64) {
        let wait = deadline > now ? deadline - now : 0
        var timeout: Int32 = 0
        if !pending.isEmpty {
            timeout = 0
        } else if wait >= 1_000_000 {
            timeout = Int32(min(wait / 1_000_000, 1000))
        } else if wait > 0 {
            // epoll counts in milliseconds: sleep out a shorter wait, then look without blocking.
            var ts = timespec(tv_sec: 0, tv_nsec: Int(wait))
            nanosleep(&ts, nil)
        }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        let n = epoll_wait(epoll, &events, 256, timeout)
        for i in 0..<max(0, Int(n)) { markPending(Int(events[i].data.u64)) }
        processPending()
    }

    private func markPending(_ socket: Int) {
        guard !isPending[socket] else { return }
        isPending[socket] = true
        pending.append(socket)
    }

    /// Reads every socket that may have input; a socket is looked at again as long as it still has some.
    private func processPending() {
        var rounds = 0
        while !pending.isEmpty, rounds < 64 {
            rounds += 1
            let sockets = pending
            pending.removeAll(keepingCapacity: true)
            for socket in sockets {
                isPending[socket] = false
                let index = socket / 2
                let zmq = socket % 2 == 0 ? dealers[index] : subs[index]
                // ZMQ_EVENTS also processes libzmq's pending commands, which re-arms the descriptor.
                guard (try? zmq.hasPendingInput) == true else { continue }
                if socket % 2 == 0 { drainDealer(index) } else { drainSub(index) }
                markPending(socket)
            }
        }
    }

    // MARK: sending

    /// The id of this shard's question number `counter` (`QuestionTag`).
    private func questionID(_ counter: UInt64) -> UUID {
        QuestionTag.uuid(run: shard.runTag, shard: UInt16(shard.index), counter: counter, random: shard.plan.randomIDs)
    }

    private func sendAsk(intended time: UInt64) {
        guard !children.isEmpty else { return }
        let child = children[nextChild % children.count]
        nextChild += 1
        let counter = UInt64(intended.count)
        intended.append(time)
        askedBy.append(Int32(child))
        let id = questionID(counter)
        // A handle of its own, so that the broker neither finds it known already nor merges it with a pending ask.
        let handle = CommunicationHandle(value: "h\(shard.runTag)-\(shard.index)-\(counter)", kind: .custom)
        let question = Question(
            id: id,
            topic: .communication(
                CommunicationTopic(personInformation: [PersonInformation(handle: handle)], actions: [.message])))
        let frame = MessageCodec.encode(
            .ask(appBundleID: "com.example.load", question: question), requestID: Self.askKind | counter)
        let frames = relay ? [devices[answerer(of: counter, family: devices[child].family)].topic, frame] : [frame]
        result.sentTotal += 1
        if time >= windowStart, time < windowEnd { result.sentInWindow += 1 }
        countMessage()
        control.sent.add(1, ordering: .relaxed)
        outstanding += 1
        markPending(2 * child)
        guard (try? dealers[child].send(frames, dontWait: true)) == true else {
            fail(counter, "ask not sent: the DEALER is at its high-water mark", replacing: false)
            return
        }
    }

    private func sendAnswer(parent: Int, counter: UInt64) {
        guard intended[Int(counter)] < Self.failed else { return }
        let id = questionID(counter)
        let frame = MessageCodec.encode(
            .answer(questionID: id, choiceID: PermissionChoice.approve.id), requestID: Self.answerKind | counter)
        let frames = relay ? [devices[Int(askedBy[Int(counter)])].topic, frame] : [frame]
        markPending(2 * parent)
        countMessage()
        if (try? dealers[parent].send(frames, dontWait: true)) != true {
            fail(counter, "answer not sent: the DEALER is at its high-water mark")
        }
    }

    private func sendSync(_ index: Int) {
        devices[index].syncing = true
        result.gapsSynced += 1
        let frame = MessageCodec.encode(
            .sync(after: devices[index].lastSeq, limit: Wire.maxEventsPerSync), requestID: Self.controlKind)
        markPending(2 * index)
        countMessage()
        _ = try? dealers[index].send([frame], dontWait: true)
    }

    /// Counts one message between a device and the target (either way) if the window is on.
    private func countMessage() {
        if passNow >= windowStart, passNow < windowEnd { result.messagesInWindow += 1 }
    }

    /// The parent that answers question `counter`: one per question, spread over the family's parents.
    private func answerer(of counter: UInt64, family: Int) -> Int {
        let parents = familyParents[family]
        return parents[Int(counter % UInt64(parents.count))]
    }

    // MARK: receiving

    private func drainDealer(_ index: Int) {
        for _ in 0..<512 {
            guard let message = try? dealers[index].receive(dontWait: true) else { return }
            countMessage()
            guard let frame = message.frames.last else { continue }
            if relay {
                // The relay echoes what it was sent; a probe's echo means the command path works.
                if MessageCodec.peekRequestID(frame) == Self.controlKind { markWelcomed(index) }
                continue
            }
            let envelope: Envelope
            do {
                envelope = try MessageCodec.decode(frame)
            } catch {
                report(index, "undecodable reply: \(error)")
                continue
            }
            switch envelope.message {
            case .welcome(_, _, _, _, _, let head):
                // Only what happens from now on is simulated: history before the run is not replayed.
                if !devices[index].welcomed { devices[index].lastSeq = head }
                markWelcomed(index)
            case .askAccepted(let asked, let resolution):
                if resolution != nil {
                    failQuestion(
                        asked.question.id, "ask resolved at once (\(resolution!.reason)) instead of reaching a parent")
                }
            case .answerAccepted, .pong:
                break
            case .events(let head, let events):
                devices[index].syncing = false
                for event in events { apply(event, at: index) }
                if head > devices[index].lastSeq, !devices[index].syncing { sendSync(index) }
            case .error(let reply):
                let requestID = envelope.requestID
                switch requestID & Self.kindMask {
                case Self.askKind, Self.answerKind:
                    fail(requestID & ~Self.kindMask, "\(reply.code): \(reply.message)")
                default:
                    devices[index].syncing = false
                    report(index, "\(reply.code): \(reply.message)")
                }
            default:
                report(index, "unexpected reply type 0x\(String(envelope.message.typeCode, radix: 16))")
            }
        }
    }

    private func markWelcomed(_ index: Int) {
        guard !devices[index].welcomed else { return }
        devices[index].welcomed = true
        control.welcomed.add(1, ordering: .relaxed)
    }

    private func markSubscribed(_ index: Int) {
        guard !devices[index].subscribed else { return }
        devices[index].subscribed = true
        control.subscribed.add(1, ordering: .relaxed)
    }

    private func drainSub(_ index: Int) {
        for _ in 0..<512 {
            guard let message = try? subs[index].receive(dontWait: true) else { return }
            countMessage()
            guard message.frames.count == 2 else { continue }
            let envelope: Envelope
            do {
                envelope = try MessageCodec.decode(message.frames[1])
            } catch {
                report(index, "undecodable event: \(error)")
                continue
            }
            switch envelope.message {
            case .heartbeat(let head):
                markSubscribed(index)
                if devices[index].welcomed, head > devices[index].lastSeq, !devices[index].syncing { sendSync(index) }
            case .event(let event):
                apply(event, at: index)
            case .eventBatch(let events):
                for event in events { apply(event, at: index) }
            case .ping:
                markSubscribed(index)
            case .ask(_, let question):
                scheduleAnswer(question.id, parent: index)
            case .answer(let id, _, _):
                complete(id, device: index)
            default:
                break
            }
        }
    }

    /// The Clone pattern, as a device does it: apply in sequence, ignore what was applied, sync on a gap.
    private func apply(_ event: Event, at index: Int) {
        let last = devices[index].lastSeq
        if event.sequence <= last {
            result.redelivered += 1
            return
        }
        if event.sequence > last + 1 {
            if !devices[index].syncing { sendSync(index) }
            return
        }
        devices[index].lastSeq = event.sequence
        switch event.body {
        case .questionPending(let asked) where !devices[index].isChild:
            scheduleAnswer(asked.question.id, parent: index)
        case .questionResolved(let asked, _) where devices[index].isChild:
            complete(asked.question.id, device: index)
        default:
            break
        }
    }

    private func scheduleAnswer(_ id: UUID, parent index: Int) {
        let (run, shardIndex, counter) = QuestionTag.parse(id, random: shard.plan.randomIDs)
        guard run == shard.runTag, Int(shardIndex) == shard.index, counter < intended.count else { return }
        guard answerer(of: counter, family: devices[index].family) == index else { return }
        answers.append((monotonicNanoseconds() + thinkNanoseconds, Int32(index), counter))
    }

    private func complete(_ id: UUID, device index: Int) {
        let (run, shardIndex, counter) = QuestionTag.parse(id, random: shard.plan.randomIDs)
        guard run == shard.runTag, Int(shardIndex) == shard.index, counter < intended.count else { return }
        let time = intended[Int(counter)]
        if time == Self.completed {
            result.duplicated += 1
            sample("question \(counter) resolved twice (child \(devices[index].member))")
            return
        }
        guard time != Self.failed else { return }
        let now = monotonicNanoseconds()
        intended[Int(counter)] = Self.completed
        outstanding -= 1
        result.completedTotal += 1
        control.completed.add(1, ordering: .relaxed)
        let elapsed = now > time + thinkNanoseconds ? now - time - thinkNanoseconds : 0
        let micros = max(1, elapsed / 1000)
        if time >= windowStart, time < windowEnd { _ = result.latency.record(micros) }
        if now >= windowStart, now < windowEnd { result.completedInWindow += 1 }
        control.interval.withLock { _ = $0.record(micros) }
        replace(now)
    }

    /// Closed loop: a finished cycle (done or failed) is replaced at once while the window lasts.
    private func replace(_ now: UInt64) {
        if case .closed = shard.plan.mode, now < windowEnd { sendAsk(intended: now) }
    }

    private func failQuestion(_ id: UUID, _ why: String) {
        let (run, shardIndex, counter) = QuestionTag.parse(id, random: shard.plan.randomIDs)
        guard run == shard.runTag, Int(shardIndex) == shard.index else { return }
        fail(counter, why)
    }

    private func fail(_ counter: UInt64, _ why: String, replacing: Bool = true) {
        result.errors += 1
        control.errors.add(1, ordering: .relaxed)
        sample(why)
        guard counter < intended.count, intended[Int(counter)] < Self.failed else { return }
        intended[Int(counter)] = Self.failed
        outstanding -= 1
        if replacing { replace(monotonicNanoseconds()) }
    }

    private func report(_ index: Int, _ why: String) {
        result.errors += 1
        control.errors.add(1, ordering: .relaxed)
        sample("\(devices[index].member): \(why)")
    }

    private func sample(_ text: String) {
        if result.errorSamples.count < 5 { result.errorSamples.append(text) }
    }

    private func finish() {
        result.lost = outstanding
        result.welcomed = devices.filter(\.welcomed).count
        result.subscribed = devices.filter(\.subscribed).count
        for socket in dealers + subs { socket.close() }
        dealers = []
        subs = []
        if epoll >= 0 { close(epoll) }
        context.terminate()
        let result = self.result
        control.results.withLock { $0.append(result) }
        control.finished.add(1, ordering: .relaxed)
    }
}

/// A load-test failure with a plain message.
public struct LoadError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
