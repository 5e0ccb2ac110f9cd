import Testing

/// The tiers of the tests (the README's test table).
extension Tag {
    /// The suite starts daemons as processes.
    @Tag static var fleet: Self
}
