// swift-tools-version: 6.2
import Foundation
import PackageDescription

/// The libFuzzer targets (docs/RELIABILITY.md), a package of their own so that the root package, what ships, does not
/// build them. `deploy/fuzz codec|broker` builds them with `HEARTH_FUZZ=1`: this manifest then compiles them with
/// `-sanitize=fuzzer,address` and their `main` runs libFuzzer's driver, and the root manifest instruments the modules
/// they test (HearthCore, HearthProtocol, BrokerCore, BrokerSQLite) the same way. Built plainly they replay files:
/// `deploy/fuzz replay`, or `.build/fuzz-replay/debug/CodecFuzzer CRASH-FILE` in a debugger.
let fuzzing = Context.environment["HEARTH_FUZZ"] == "1"
/// `-O` even in a debug build: CI builds the fuzzers in debug (`deploy/fuzz --debug`), and the code they exercise
/// would run several times slower at `-Onone`. Redundant in release.
let fuzzEntry: [SwiftSetting] =
    fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-O"]), .define("HEARTH_FUZZ")] : []
/// libFuzzer's runtime without its `main` (the path `deploy/fuzz` passes in HEARTH_FUZZ_RUNTIME): a debug executable's
/// `main` is SwiftPM's alias of the target's own entry, which `-sanitize=fuzzer`'s runtime would duplicate. Without the
/// variable, `-sanitize=fuzzer` links the runtime whole, which links in release only.
let fuzzRuntime = Context.environment["HEARTH_FUZZ_RUNTIME"].map { ["-sanitize=address", "-Xlinker", $0, "-lstdc++"] }
let fuzzLink: [LinkerSetting] =
    fuzzing ? [.unsafeFlags((fuzzRuntime ?? ["-sanitize=fuzzer,address"]) + ["-use-ld=lld"])] : []

/// The root package, by path as swift-nio's benchmarks name theirs; its identity is its folder's name, whatever the
/// clone is called.
let hearth = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "hearth-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Without the root's default trait, PostgreSQL: the broker's target fuzzes its SQLite store, and the sanitized
        // release build compiles no BoringSSL: neither postgres-nio with swift-nio-ssl, nor swift-crypto (the broker's
        // scrypt is libsodium's).
        .package(path: "..", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .target(name: "FuzzSupport", swiftSettings: fuzzEntry),
        .executableTarget(
            name: "CodecFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "HearthProtocol", package: hearth),
                .product(name: "HearthCore", package: hearth),
            ],
            swiftSettings: fuzzEntry, linkerSettings: fuzzLink
        ),
        .executableTarget(
            name: "BrokerCommandFuzzer",
            dependencies: [
                "FuzzSupport",
                .product(name: "BrokerCore", package: hearth),
                .product(name: "BrokerSQLite", package: hearth),
                .product(name: "HearthProtocol", package: hearth),
                .product(name: "HearthCore", package: hearth),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzEntry, linkerSettings: fuzzLink
        ),
    ],
    swiftLanguageModes: [.v6]
)
