/// A daemon's answer to a liveness or readiness probe.
public struct HealthStatus: Sendable, Equatable {
    public var ok: Bool
    /// One line for people: what is (not) ready.
    public var detail: String

    public init(ok: Bool, _ detail: String) {
        self.ok = ok
        self.detail = detail
    }
}
