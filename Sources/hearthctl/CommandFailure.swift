/// A command that could not do its work, for a reason that is not a mistake in its arguments: a daemon not running
/// or refusing, a question no longer waiting. ArgumentParser prints it as `Error: …` on standard error and exits 1,
/// without the usage text a `ValidationError` adds (which would tell the user they mistyped).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
