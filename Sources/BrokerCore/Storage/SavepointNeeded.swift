/// A command run without a savepoint (`StorageWriter.unguarded`) failed after it had changed the store: only a
/// savepoint could undo that change alone, so the transaction must not commit; the engine runs it again with
/// savepoints.
package struct SavepointNeeded: Error, CustomStringConvertible {
    package init() {}

    package var description: String { "a command failed after a change that only a savepoint could undo" }
}
