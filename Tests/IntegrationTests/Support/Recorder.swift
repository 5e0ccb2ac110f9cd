import Synchronization

/// A list that background tasks append to and a test reads, safely across threads.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    func append(contentsOf new: some Sequence<Element>) { items.withLock { $0.append(contentsOf: new) } }

    func append(_ item: Element) { items.withLock { $0.append(item) } }

    /// Everything appended so far, in order.
    var all: [Element] { items.withLock { $0 } }
}
