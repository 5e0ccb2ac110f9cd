import Foundation

/// Finds the daemon executables: `$HEARTH_BIN_DIR`, else beside the running executable (as under `swift test`),
/// else the package's `.build/debug`; the directory is the one that holds `family-broker-lab`, the broker a fleet
/// runs (`swift build --product family-broker-lab`, beside the device daemons).
public enum BinaryLocator {
    public static func directory(filePath: String = #filePath) throws -> String {
        let fm = FileManager.default
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["HEARTH_BIN_DIR"], !env.isEmpty { candidates.append(env) }
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var dir = executable.deletingLastPathComponent()
            // Inside an .xctest bundle on some platforms; walk up until a directory holds the daemons.
            for _ in 0..<4 {
                candidates.append(dir.path)
                dir = dir.deletingLastPathComponent()
            }
        }
        var root = URL(fileURLWithPath: filePath)
        for _ in 0..<4 { root = root.deletingLastPathComponent() }
        candidates.append(root.appendingPathComponent(".build/debug").path)
        for candidate in candidates where fm.isExecutableFile(atPath: candidate + "/family-broker-lab") {
            return candidate
        }
        throw FleetError(
            "cannot find the family-broker-lab executable (looked in \(candidates.joined(separator: ", "))); run `swift build` or set HEARTH_BIN_DIR"
        )
    }
}
