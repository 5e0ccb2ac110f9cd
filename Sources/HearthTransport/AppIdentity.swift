public import Foundation

/// How an app library names its app to the device daemon.
public enum AppIdentity {
    /// `$HEARTH_APP_BUNDLE_ID`, else the process name with characters a bundle id may not hold replaced by `-`.
    public static func bundleID(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        processName: String = ProcessInfo.processInfo.processName
    ) -> String {
        if let id = environment["HEARTH_APP_BUNDLE_ID"], !id.isEmpty { return id }
        let cleaned = String(
            processName.unicodeScalars.prefix(255).map { scalar -> Character in
                let allowed =
                    scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "._-".unicodeScalars.contains(scalar))
                return allowed ? Character(scalar) : "-"
            })
        return cleaned.isEmpty ? "unknown-app" : cleaned
    }
}
