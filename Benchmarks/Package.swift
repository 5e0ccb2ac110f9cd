// swift-tools-version: 6.2
import Foundation
import PackageDescription

/// Microbenchmarks (ordo-one/benchmark, with its malloc interposer), a package of their own as swift-nio's are, so
/// that the root package neither resolves the benchmark package nor builds its plugin's code generator:
/// `swift package --package-path Benchmarks benchmark` (or `cd Benchmarks && swift package benchmark`). The plugin
/// runs the executable targets whose folder is in a folder named Benchmarks.
///
/// The root package is a path dependency; its identity is its folder's name, whatever the clone is called.
let hearth = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "hearth-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "HearthBenchmarks",
            dependencies: [
                .product(name: "BrokerCore", package: hearth),
                .product(name: "BrokerSQLite", package: hearth),
                .product(name: "FamilyBroker", package: hearth),
                .product(name: "HearthProtocol", package: hearth),
                .product(name: "HearthCore", package: hearth),
                .product(name: "ZeroMQ", package: hearth),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/HearthBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
