import Foundation

/// Limits how many fleets run at once in one process (`HEARTH_FLEET_CONCURRENCY`, default 2).
///
/// Test runners start suites in parallel; each fleet is several daemons, and a 2-core machine running a dozen fleets at
/// once starves them all past their start-up deadlines. A test waits here for a slot before its fleet's clock starts.
actor FleetSlots {
    static let shared = FleetSlots(
        limit: Int(ProcessInfo.processInfo.environment["HEARTH_FLEET_CONCURRENCY"] ?? "") ?? 2)

    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            // The slot passes straight to the next waiter.
            waiting.removeFirst().resume()
        }
    }
}
