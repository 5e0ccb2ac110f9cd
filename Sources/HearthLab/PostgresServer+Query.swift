import Foundation
import HearthService

extension PostgresServer {
    /// Runs one SQL statement with `psql` over the server's Unix socket and returns its rows, each a list of fields
    /// (text, `|`-separated by psql, no header). For tests and load tests that look at the cluster's tables.
    public func query(_ sql: String) async throws -> [[String]] {
        let psql = binaries + "/psql"
        let argv = (runAs.map { ["/usr/sbin/runuser", "-u", $0, "--", psql] } ?? [psql])
        let output = directory + "/query-\(UUID().uuidString.prefix(8)).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let arguments = [
            "-h", directory, "-p", "\(port)", "-U", user, "-d", database, "-X", "-q", "-A", "-t", "-F", "|",
            "-v", "ON_ERROR_STOP=1", "-c", sql,
        ]
        let process = try SpawnedProcess.launch(
            argv[0], arguments: Array(argv.dropFirst()) + arguments, output: output, append: false)
        let status = await process.waitUntilExit()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(description: "psql -c \(sql) exited \(status): \(text)") }
        return text.split(separator: "\n").map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
    }
}
