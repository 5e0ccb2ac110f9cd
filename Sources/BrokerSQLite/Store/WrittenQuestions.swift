import BrokerCore
import Foundation
import HearthCore
import HearthProtocol

/// The questions the writer stored lately, decoded, with their numbers (`question.num`): an answer reads its question
/// from here instead of reading its row by id and decoding it, and resolves it and schedules its reminder by number,
/// without the id index (docs/decisions/0002-ask-windows-in-memory.md).
///
/// Exactly the rows, or nothing: an entry is what reading its row would return (`Stored.Question.asRead`), added when
/// the writer inserts the row and changed when it resolves it, in the same transaction; a command's savepoint that
/// rolls back takes its changes back out, and a transaction that rolls back forgets everything. Forgotten with the
/// writer's other memory (`WriterStatements.forgetMemory`): after a write outside the engine's transactions, another
/// connection's commit, or on a new connection. A question not held is read from its row, so memory may drop entries
/// at any time: it keeps the last `capacity` questions at most, in two generations. Reached only under the
/// store's writer lock (decision 0024).
final class WrittenQuestions {
    /// A stored question and its row's number: held by reference, so that reading or resolving one copies nothing.
    final class Entry {
        let num: Int64
        fileprivate(set) var question: Stored.Question

        init(num: Int64, question: Stored.Question) {
            self.num = num
            self.question = question
        }
    }

    /// A change of the open transaction, for rolling a savepoint back.
    private enum Change {
        case added(UUID)
        case resolved(Entry, before: Resolution?)
    }

    /// Entries added since the last turn, and those of the generation before.
    private var current: [UUID: Entry]
    private var previous: [UUID: Entry] = [:]
    private var undo: [Change] = []

    /// Most entries held.
    let capacity: Int

    init(capacity: Int = 8192) {
        self.capacity = capacity
        current = Dictionary(minimumCapacity: capacity / 2)
    }

    /// Entries held (tests).
    var count: Int { current.count + previous.count }

    /// The stored question `id` and its number, when held.
    func entry(_ id: UUID) -> Entry? { current[id] ?? previous[id] }

    /// A question the open transaction inserted, as row `num`.
    func added(_ question: Stored.Question, num: Int64) {
        let id = question.asked.question.id
        if current.count >= capacity / 2 {
            // The older generation goes: a lookup stays one or two hashes, with no order of entries to keep.
            previous = current
            current = Dictionary(minimumCapacity: capacity / 2)
        }
        current[id] = Entry(num: num, question: question)
        undo.append(.added(id))
    }

    /// The open transaction resolved question `id` with `resolution` (as its row reads it back).
    func resolved(_ id: UUID, with resolution: Resolution) {
        guard let entry = entry(id) else { return }
        undo.append(.resolved(entry, before: entry.question.resolution))
        entry.question.resolution = resolution
    }

    /// Where a savepoint starts, for `rollback(to:)`.
    var mark: Int { undo.count }

    /// Takes back the changes made since `mark`: their savepoint rolled back.
    func rollback(to mark: Int) {
        while undo.count > mark {
            switch undo.removeLast() {
            case .added(let id):
                if current.removeValue(forKey: id) == nil { previous.removeValue(forKey: id) }
            case .resolved(let entry, let before):
                // Harmless on an entry no longer held.
                entry.question.resolution = before
            }
        }
    }

    /// The open transaction committed: its changes stay.
    func committed() { undo.removeAll(keepingCapacity: true) }

    /// Forgets every entry: a transaction rolled back, or the rows may have changed outside the writer's transactions.
    func invalidate() {
        current = Dictionary(minimumCapacity: capacity / 2)
        previous = [:]
        undo.removeAll()
    }
}

extension Stored.Question {
    /// `asked` and `resolution` as their row reads them back: dates in whole milliseconds and names with the four
    /// components the wire encoding keeps, as `BrokerStore.decodeQuestion` returns them.
    static func asRead(_ asked: AskedQuestion, _ resolution: Resolution?) -> Stored.Question {
        var asked = asked
        asked.askedAt = Wire.carried(asked.askedAt)
        asked.question.expirationDate = asked.question.expirationDate.map(Wire.carried)
        if case .communication(var topic) = asked.question.topic {
            for index in topic.personInformation.indices {
                topic.personInformation[index].nameComponents =
                    topic.personInformation[index].nameComponents.map(Self.carried)
            }
            asked.question.topic = .communication(topic)
        }
        return Stored.Question(asked: asked, resolution: resolution.map(Self.asRead))
    }

    /// `resolution` as its row reads it back.
    static func asRead(_ resolution: Resolution) -> Resolution {
        var resolution = resolution
        resolution.resolvedAt = Wire.carried(resolution.resolvedAt)
        return resolution
    }

    /// The components the wire encoding keeps (`WireWriter.person`).
    private static func carried(_ name: PersonNameComponents) -> PersonNameComponents {
        var kept = PersonNameComponents()
        kept.givenName = name.givenName
        kept.middleName = name.middleName
        kept.familyName = name.familyName
        kept.nickname = name.nickname
        return kept
    }
}
