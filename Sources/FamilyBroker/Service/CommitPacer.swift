import ZeroMQ

/// Takes everything a mailbox holds as one batch, starting batches at least `interval` apart: under load, what
/// arrives meanwhile joins the next batch (one commit for more commands); after a quiet spell the first item is
/// taken at once.
struct CommitPacer: Sendable {
    let interval: Duration

    /// Runs `body` on each batch until the mailbox is finished and drained or `body` returns false.
    func run<Item: Sendable>(_ mailbox: Mailbox<Item>, _ body: ([Item]) async -> Bool) async {
        var lastStart = ContinuousClock.now - interval
        while true {
            if interval > .zero, ContinuousClock.now < lastStart + interval {
                try? await Task.sleep(until: lastStart + interval, clock: .continuous)
            }
            guard let batch = await mailbox.take() else { return }
            lastStart = .now
            guard await body(batch) else { return }
        }
    }
}
