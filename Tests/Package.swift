// swift-tools-version: 6.2
import Foundation
import PackageDescription

/// The unit tier: the test suites that start no daemon, as a package of their own so that one module's tests build
/// only the modules they test. The root package's `swift test` builds every target, the daemons and the load
/// generator included (SwiftPM links every test target into one bundle on Linux); here
/// `swift test --package-path Tests --filter HearthProtocolTests` builds HearthCore, HearthProtocol and that suite.
///
/// The targets are the root's own test folders, by `path:`: nothing is copied, and the root's `swift test` still runs
/// every suite. The root package is a path dependency; its identity is its folder's name, whatever the clone is called.
/// ArchitectureTests' `UnitPackageTests` keeps this list equal to the root's test targets that depend on no executable.
let hearth = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

/// A module of the root package, through the library products it declares for this repository's other packages.
func root(_ name: String) -> Target.Dependency { .product(name: name, package: hearth) }

let package = Package(
    name: "hearth-unit-tests",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        // The same versions the root resolves: this package's dependencies are the root's.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        .testTarget(name: "ZeroMQTests", dependencies: [root("ZeroMQ")], path: "ZeroMQTests"),
        .testTarget(name: "ArchitectureTests", path: "ArchitectureTests"),
        .testTarget(
            name: "HearthProtocolTests",
            dependencies: [root("HearthProtocol"), root("HearthCore")],
            path: "HearthProtocolTests"
        ),
        .testTarget(
            name: "FamilyBrokerTests",
            dependencies: [
                root("BrokerCore"), root("BrokerSQLite"), root("BrokerPostgres"), root("FamilyBroker"),
                root("HearthService"), root("ZeroMQ"), root("HearthLab"),
                root("FamilyFileYAML"), root("HearthCore"), root("HearthProtocol"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "FamilyBrokerTests"
        ),
        .testTarget(
            name: "PermissionKitTests",
            dependencies: [
                root("PermissionKit"), root("HearthCore"), root("HearthProtocol"), root("HearthTransport"),
                root("ZeroMQ"),
            ],
            path: "PermissionKitTests"
        ),
        .testTarget(
            name: "DeclaredAgeRangeTests",
            dependencies: [root("DeclaredAgeRange"), root("HearthProtocol"), root("HearthTransport")],
            path: "DeclaredAgeRangeTests"
        ),
        .testTarget(
            name: "HearthServiceTests",
            dependencies: [
                root("HearthService"), root("HearthCore"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "HearthServiceTests"
        ),
        .testTarget(
            name: "DeviceRuntimeTests",
            dependencies: [
                root("DeviceRuntime"), root("ChildDevice"), root("ParentDevice"), root("HearthProtocol"),
                root("HearthCore"), root("HearthService"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "DeviceRuntimeTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The settings the root gives these suites: its upcoming features. Not its package name (SwiftPM passes this
// package's own last, whatever a flag says): a suite reaches the root's `package` declarations by `@testable import`.
for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
