import Foundation
import HearthService
import Synchronization

/// A throwaway PostgreSQL server of Debian's `postgresql` package, for tests, fleets and load tests: `initdb` into a
/// directory of its own and `pg_ctl` on a free loopback port, removed by `remove()`.
///
/// PostgreSQL refuses to run as root, so when this process is root (as CI is) the server's directory is given to
/// `nobody` and every server command runs as that user through `runuser`. Clients connect over TCP on 127.0.0.1 with
/// the user `hearth` and a random password (`password`, also in `passwordFile`), never given on a command line.
public final class PostgresServer: Sendable {
    /// Why a server could not be set up or started.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The server's own directory: `data/`, its log, its password file and its Unix socket.
    public let directory: String
    public let port: Int
    public let user = "hearth"
    public let database = "hearth"
    /// The password of `user`; also written to `passwordFile` (mode 0600).
    public let password: String
    let binaries: String
    let runAs: String?
    private let running = Mutex(false)

    /// The connection URL without the password: `postgres://hearth@127.0.0.1:PORT/hearth`.
    public var url: String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }
    public var passwordFile: String { directory + "/password" }
    public var logFile: String { directory + "/server.log" }
    public var dataDirectory: String { directory + "/data" }
    public var isRunning: Bool { running.withLock { $0 } }

    init(directory: String, port: Int, password: String, binaries: String, runAs: String?) {
        self.directory = directory
        self.port = port
        self.password = password
        self.binaries = binaries
        self.runAs = runAs
    }

    /// Where Debian installs the server's programs: the newest `/usr/lib/postgresql/N/bin` holding `initdb`.
    public static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let found = versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
        guard let found else {
            throw Failure(description: "no PostgreSQL server under \(root): install Debian's postgresql (deploy/setup)")
        }
        return found
    }

    /// Creates a cluster in a new temporary directory and starts it; `remove()` stops it and deletes everything.
    public static func start(timeout: Duration = .seconds(60)) async throws -> PostgresServer {
        let binaries = try binaries()
        let server = PostgresServer(
            directory: try makeDirectory(), port: try LoopbackPort.free(), password: UUID().uuidString,
            binaries: binaries, runAs: getuid() == 0 ? "nobody" : nil)
        do {
            try await server.initialize()
            try await server.startAgain(timeout: timeout)
            try await server.createDatabase()
        } catch {
            await server.remove()
            throw error
        }
        return server
    }

    /// A new directory for a server under /tmp.
    static func makeDirectory() throws -> String {
        var template = Array("/tmp/hearth-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed: errno \(errno)") }
        return String(cString: made)
    }

    /// Writes the password file and, as root, gives the directory and the file to the server's user: it must own
    /// them, and nobody else may read the password.
    func preparePasswordFile() throws {
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        chmod(passwordFile, 0o600)
        guard runAs != nil else { return }
        guard let account = getpwnam("nobody") else {
            throw Failure(description: "no user nobody to run PostgreSQL as")
        }
        for path in [directory, passwordFile] where chown(path, account.pointee.pw_uid, account.pointee.pw_gid) != 0 {
            throw Failure(description: "chown \(path) failed: errno \(errno)")
        }
    }

    private func initialize() async throws {
        try preparePasswordFile()
        try await run(
            "initdb",
            [
                "-D", dataDirectory, "-U", user, "--pwfile=\(passwordFile)", "--auth-host=scram-sha-256",
                "--auth-local=trust", "--encoding=UTF8", "--no-locale", "--no-instructions",
            ])
        try appendSettings(
            """
            # hearth's throwaway server
            listen_addresses = '127.0.0.1'
            max_connections = 100
            shared_buffers = 32MB
            """)
    }

    /// Appends `settings` to the server's `postgresql.conf` with its own port and socket directory after them (the
    /// last value of a setting wins: a standby copied from another server's files gets its own).
    func appendSettings(_ settings: String) throws {
        let text = """

            \(settings)
            port = \(port)
            unix_socket_directories = '\(directory)'

            """
        let conf = URL(fileURLWithPath: dataDirectory + "/postgresql.conf")
        let handle = try FileHandle(forWritingTo: conf)
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
    }

    /// Starts the server (again, after `stop` or `kill`), waiting until it accepts connections.
    public func startAgain(timeout: Duration = .seconds(60)) async throws {
        let seconds = max(1, Int(timeout.components.seconds))
        try await run("pg_ctl", ["-D", dataDirectory, "-l", logFile, "-w", "-t", "\(seconds)", "start"])
        running.withLock { $0 = true }
    }

    private func createDatabase() async throws {
        try await run("createdb", ["-h", directory, "-p", "\(port)", "-U", user, database])
    }

    /// Stops the server: `fast` (the default) rolls back open transactions and closes connections.
    public func stop(mode: String = "fast") async throws {
        try await run("pg_ctl", ["-D", dataDirectory, "-m", mode, "-w", "stop"])
        running.withLock { $0 = false }
    }

    /// Kills the server's postmaster with SIGKILL, as a crash would, and waits until its backends have noticed and gone
    /// (a new postmaster refuses to start beside them); `startAgain()` recovers from the WAL.
    /// With `everyProcess`, its backends, WAL senders and other children are killed with it, as the crash of its host
    /// would (also one stopped by `pauseWALSender()`).
    public func kill(everyProcess: Bool = false) async throws {
        let pidFile = (try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)) ?? ""
        guard let pid = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw Failure(description: "no postmaster.pid: the server is not running")
        }
        let children = everyProcess ? Self.children(of: pid) : []
        Foundation.kill(pid, SIGKILL)
        for child in children { Foundation.kill(child, SIGKILL) }
        running.withLock { $0 = false }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, !Self.children(of: pid).isEmpty || Foundation.kill(pid, 0) == 0 {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The processes whose parent is `pid`, from /proc.
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            // Fields after the command name: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    /// Stops the server if it runs and deletes its directory. Safe to call more than once.
    public func remove() async {
        if FileManager.default.fileExists(atPath: dataDirectory + "/postmaster.pid") {
            // A process stopped by `pauseWALSender()` would not act on the stop until continued.
            let pidFile = (try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)) ?? ""
            if let pid = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) {
                for child in Self.children(of: pid) { Foundation.kill(child, SIGCONT) }
            }
            try? await run("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        }
        running.withLock { $0 = false }
        // A data directory of about a thousand files: not on the cooperative pool.
        let directory = self.directory
        await BlockingWork.run { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The last lines of the server's log, for test failures.
    public func recentLog(lines: Int = 20) -> String {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// Runs one of the server's programs (as `runAs` when set) and throws with its output if it fails.
    func run(_ program: String, _ arguments: [String]) async throws {
        let argv =
            runAs.map { ["/usr/sbin/runuser", "-u", $0, "--", binaries + "/" + program] }
            ?? [binaries + "/" + program]
        let outputPath = directory + "/command.out"
        let process = try SpawnedProcess.launch(
            argv[0], arguments: Array(argv.dropFirst()) + arguments, output: outputPath, append: false)
        let status = await process.waitUntilExit()
        guard status == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) exited \(status): \(text)")
        }
    }
}
