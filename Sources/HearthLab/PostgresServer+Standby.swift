import Foundation

extension PostgresServer {
    /// The `application_name` (its `cluster_name`) a standby of `startStandby` streams under, which the primary's
    /// `synchronous_standby_names` names when the standby is synchronous.
    public static let standbyName = "hearth_standby"

    /// Starts a streaming standby of this server in a new directory on a free port (`pg_basebackup -R`, WAL streamed),
    /// and waits until it streams. A `synchronous` standby is named in this server's `synchronous_standby_names`
    /// (`synchronous_commit` is `on`, the default and what the broker sets): from then on a commit returns only once
    /// the standby has flushed it. Asynchronous, it streams with no such wait and may be behind when this server is
    /// lost. Same user, password and database; `promote()` makes it a primary; `remove()` deletes it.
    public func startStandby(synchronous: Bool, timeout: Duration = .seconds(60)) async throws -> PostgresServer {
        let standby = PostgresServer(
            directory: try Self.makeDirectory(), port: try LoopbackPort.free(), password: password,
            binaries: binaries, runAs: runAs)
        do {
            try standby.preparePasswordFile()
            // Over this server's Unix socket, where replication is trusted (initdb's --auth-local=trust).
            try await standby.run(
                "pg_basebackup",
                [
                    "-h", directory, "-p", "\(port)", "-U", user, "-D", standby.dataDirectory, "-R", "-X", "stream",
                    "-c", "fast",
                ])
            try standby.appendSettings(
                """
                # hearth's throwaway standby
                cluster_name = '\(Self.standbyName)'
                hot_standby = on
                """)
            try await standby.startAgain(timeout: timeout)
            if synchronous {
                _ = try await query("ALTER SYSTEM SET synchronous_standby_names = '\(Self.standbyName)'")
                _ = try await query("SELECT pg_reload_conf()")
            }
            try await waitForStandby(synchronous: synchronous, timeout: timeout)
        } catch {
            await standby.remove()
            throw error
        }
        return standby
    }

    /// Waits until this server streams to the standby, in the synchronous state when `synchronous`.
    private func waitForStandby(synchronous: Bool, timeout: Duration) async throws {
        let wanted = synchronous ? "sync" : "async"
        let deadline = ContinuousClock.now + timeout
        var seen: [[String]] = []
        while ContinuousClock.now < deadline {
            seen = try await query(
                "SELECT state, sync_state FROM pg_stat_replication WHERE application_name = '\(Self.standbyName)'")
            if seen.contains(["streaming", wanted]) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "the standby did not stream (\(wanted)) within \(timeout): \(seen)")
    }

    /// Makes a standby a primary (`pg_ctl promote`), waiting until it accepts writes.
    public func promote(timeout: Duration = .seconds(60)) async throws {
        let seconds = max(1, Int(timeout.components.seconds))
        try await run("pg_ctl", ["-D", dataDirectory, "-w", "-t", "\(seconds)", "promote"])
    }

    /// Freezes (SIGSTOP) this server's WAL sender to its standby, so that the standby falls behind as over a slow
    /// link: commits go on (asynchronous standby) or wait (synchronous) until it runs again or the server is killed
    /// with `kill(everyProcess: true)`.
    public func pauseWALSender() async throws {
        let rows = try await query(
            "SELECT pid FROM pg_stat_replication WHERE application_name = '\(Self.standbyName)'")
        guard let pid = rows.first?.first.flatMap({ Int32($0) }) else {
            throw Failure(description: "no WAL sender to the standby: \(rows)")
        }
        guard Foundation.kill(pid, SIGSTOP) == 0 else {
            throw Failure(description: "SIGSTOP \(pid) failed: errno \(errno)")
        }
    }

    /// Whether the server is in recovery (a standby not promoted).
    public func isInRecovery() async throws -> Bool {
        try await query("SELECT pg_is_in_recovery()") == [["t"]]
    }
}
