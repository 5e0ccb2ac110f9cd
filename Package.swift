// swift-tools-version: 6.2
import PackageDescription

/// `deploy/fuzz` (HEARTH_FUZZ=1, docs/RELIABILITY.md) builds the fuzz package, Fuzz/Package.swift, which depends on
/// this one by path: the code its targets test (HearthCore, HearthProtocol, BrokerCore, BrokerSQLite) gets libFuzzer's
/// coverage and AddressSanitizer. Set per target, not with `-Xswiftc`, so that the packages below (GRDB, NIO,
/// postgres-nio) are not instrumented too.
let fuzzing = Context.environment["HEARTH_FUZZ"] == "1"
/// `-O` for the fuzzers' debug build too (Fuzz/Package.swift says why); redundant in release.
let fuzzed: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-O"])] : []

let package = Package(
    name: "hearth",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PermissionKit", targets: ["PermissionKit"]),
        .library(name: "DeclaredAgeRange", targets: ["DeclaredAgeRange"]),
        .library(name: "ParentKit", targets: ["ParentKit"]),
        .library(name: "HearthFleet", targets: ["HearthFleet"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        // For this repository's other packages (Benchmarks/, Fuzz/, and Tests/ for the unit tier), which test these
        // modules from outside; not an API for users.
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "HearthProtocol", targets: ["HearthProtocol"]),
        .library(name: "HearthTransport", targets: ["HearthTransport"]),
        .library(name: "BrokerCore", targets: ["BrokerCore"]),
        .library(name: "BrokerSQLite", targets: ["BrokerSQLite"]),
        .library(name: "BrokerPostgres", targets: ["BrokerPostgres"]),
        .library(name: "FamilyBroker", targets: ["FamilyBroker"]),
        .library(name: "HearthService", targets: ["HearthService"]),
        .library(name: "FamilyFileYAML", targets: ["FamilyFileYAML"]),
        .library(name: "HearthLab", targets: ["HearthLab"]),
        .library(name: "DeviceRuntime", targets: ["DeviceRuntime"]),
        .library(name: "ChildDevice", targets: ["ChildDevice"]),
        .library(name: "ParentDevice", targets: ["ParentDevice"]),
        .executable(name: "family-broker", targets: ["family-broker"]),
        // The broker HearthFleet runs: family-broker plus the hooks a test injects (docs/decisions/0020). Not shipped.
        .executable(name: "family-broker-lab", targets: ["family-broker-lab"]),
        .executable(name: "child-device", targets: ["child-device"]),
        .executable(name: "parent-device", targets: ["parent-device"]),
        .executable(name: "hearthctl", targets: ["hearthctl"]),
        .executable(name: "hearth-loadtest", targets: ["hearth-loadtest"]),
        .executable(name: "hearth-fleet", targets: ["hearth-fleet"]),
        .library(name: "HearthClient", targets: ["HearthClient"]),
    ],
    // The PostgreSQL store (and the cluster it carries) is a trait, on by default: built without it
    // (`--disable-default-traits`, or a package depending on this one with `traits: []`, as the fuzzers do), the broker
    // compiles neither postgres-nio nor swift-nio-ssl and its BoringSSL, and refuses a postgres:// store
    // (docs/decisions/0023-postgresql-trait.md).
    traits: [
        .default(enabledTraits: ["PostgreSQL"]),
        .trait(name: "PostgreSQL", description: "The broker's PostgreSQL store and its cluster of brokers."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // 6.x: swift-configuration's YAML trait needs Yams 5.4 or newer, and this machine's mirror has 5.0.1 or 6.2.2.
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [.defaults, "YAML"]),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // HearthService's `FilePath`: swift-configuration's file providers take one.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ", "HearthCore"]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .target(name: "HearthCore", swiftSettings: fuzzed),
        .target(name: "HearthProtocol", dependencies: ["HearthCore"], swiftSettings: fuzzed),
        .target(name: "HearthTransport", dependencies: ["ZeroMQ", "HearthProtocol"]),
        // The family file read and written as YAML: what the broker, hearthctl and the fleet share, without the
        // daemons' service code.
        .target(
            name: "FamilyFileYAML",
            dependencies: ["HearthCore", "HearthProtocol", .product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "HearthService",
            dependencies: [
                "CSpawn", "HearthCore",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // The HTTP listeners (ops endpoint, parent-device's page): NIO's accept backoff and header-first
                // parsing.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The broker's engine, policy, directory, and the seams of its store and its cluster: no store, socket or
        // NIO code (docs/decisions/0025-broker-core-module.md). ModuleRulesTests keeps these dependencies so.
        .target(
            name: "BrokerCore",
            dependencies: [
                "HearthCore", "HearthProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                // The passcode hash's scrypt, from the libsodium libzmq links already: no BoringSSL for one KDF.
                "CSodium",
            ],
            swiftSettings: fuzzed
        ),
        // The broker's SQLite store (GRDB), the default: the engine's store seam on one file.
        .target(
            name: "BrokerSQLite",
            dependencies: [
                "BrokerCore", "HearthCore", "HearthProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // The broker's PostgreSQL store and the cluster of brokers that shares it; without the `PostgreSQL` trait
        // only the store setting's parsing and its refusal (docs/decisions/0023-postgresql-trait.md). The record
        // encodings it shares with the SQLite store are BrokerCore's (`Stored`'s), so it does not depend on that store.
        .target(
            name: "BrokerPostgres",
            dependencies: [
                "BrokerCore", "HearthCore", "HearthProtocol", "HearthService",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
        ),
        .target(
            name: "FamilyBroker",
            dependencies: [
                "BrokerCore", "BrokerSQLite", "BrokerPostgres", "ZeroMQ", "HearthCore", "HearthProtocol",
                "HearthTransport", "HearthService", "FamilyFileYAML",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
        ),
        .target(
            name: "DeviceRuntime",
            dependencies: [
                "ZeroMQ", "HearthCore", "HearthProtocol", "HearthTransport", "HearthService",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "ChildDevice",
            dependencies: [
                "DeviceRuntime", "HearthCore", "HearthProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "ParentDevice",
            dependencies: [
                "DeviceRuntime", "HearthService", "HearthCore", "HearthProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(name: "PermissionKit", dependencies: ["HearthTransport", "HearthCore", "HearthProtocol"]),
        .target(name: "DeclaredAgeRange", dependencies: ["HearthTransport", "HearthCore", "HearthProtocol"]),
        .target(name: "ParentKit", dependencies: ["HearthTransport", "HearthCore", "HearthProtocol"]),
        .target(
            name: "HearthFleet",
            dependencies: [
                "HearthService", "ZeroMQ", "HearthCore", "HearthProtocol", "HearthTransport", "HearthClient",
                "FamilyFileYAML", "PermissionKit",
                "DeclaredAgeRange",
                "BrokerCore", "FamilyBroker", "DeviceRuntime", "ChildDevice", "ParentDevice", "HearthLab",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "family-broker",
            dependencies: ["FamilyBroker", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // What the test kit shares with the lab's executables and the unit suites, apart from the fleet: the broker's
        // moved clock, a throwaway PostgreSQL server, TCP relays to cut, a small filesystem.
        .target(
            name: "HearthLab",
            dependencies: [
                "HearthService", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "family-broker-lab",
            dependencies: [
                "FamilyBroker", "HearthLab", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "child-device",
            dependencies: [
                "ChildDevice", "DeviceRuntime", "HearthTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "parent-device",
            dependencies: [
                "ParentDevice", "DeviceRuntime", "HearthTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "hearthctl",
            dependencies: [
                // Neither HearthFleet (a test kit) nor FamilyBroker: a shipped tool links what a client needs.
                "HearthCore",
                "PermissionKit", "DeclaredAgeRange", "ParentKit", "HearthClient", "ZeroMQ", "HearthProtocol",
                "HearthTransport", "FamilyFileYAML", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The client side of the daemons' local sockets: a person's consoles (parent, age range) and the ops probes.
        .target(name: "HearthClient", dependencies: ["HearthCore", "HearthProtocol", "HearthTransport"]),
        .executableTarget(
            name: "hearth-fleet",
            dependencies: ["HearthFleet", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .target(name: "CEpoll"),
        // posix_spawn's close-from file action for HearthService's SpawnedProcess.
        .target(name: "CSpawn"),
        .target(
            name: "HearthLoad",
            dependencies: [
                "CEpoll", "CZeroMQ", "ZeroMQ", "HearthCore", "HearthProtocol", "HearthTransport", "HearthFleet",
                "PermissionKit",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                // The chaos run reads the daemons' sequence numbers from their SQLite files.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "hearth-loadtest",
            dependencies: [
                "BrokerCore", "BrokerSQLite", "FamilyBroker", "HearthProtocol", "HearthCore", "HearthFleet", "ZeroMQ",
                "HearthTransport",
                "HearthLoad", "HearthService", "FamilyFileYAML",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                // The engine benchmark builds the broker's engine and store as the broker does.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        // docs/ARCHITECTURE.md's module table against Sources/'s imports: it reads files, so it depends on nothing.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "HearthProtocolTests", dependencies: ["HearthProtocol", "HearthCore"]),
        .testTarget(
            name: "FamilyBrokerTests",
            dependencies: [
                "BrokerCore", "BrokerSQLite", "BrokerPostgres", "FamilyBroker", "HearthService", "ZeroMQ", "HearthLab",
                "FamilyFileYAML", "HearthCore", "HearthProtocol",
                // The PostgreSQL store's tests run on a throwaway server (HearthLab's `PostgresServer`), not a fleet.
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "PermissionKitTests",
            dependencies: ["PermissionKit", "HearthCore", "HearthProtocol", "HearthTransport", "ZeroMQ"]
        ),
        .testTarget(
            name: "DeclaredAgeRangeTests", dependencies: ["DeclaredAgeRange", "HearthProtocol", "HearthTransport"]),
        .testTarget(
            name: "HearthServiceTests",
            dependencies: [
                "HearthService", "HearthCore", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "DeviceRuntimeTests",
            dependencies: [
                "DeviceRuntime", "ChildDevice", "ParentDevice", "HearthProtocol", "HearthCore", "HearthService",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // An app written against Apple's shipping PermissionKit and Declared Age Range (its app file imports nothing
        // else), run against real daemons.
        .testTarget(
            name: "AppleAPITests",
            dependencies: [
                "PermissionKit", "DeclaredAgeRange", "HearthFleet", "HearthClient", "HearthService", "HearthCore",
                "HearthProtocol", "family-broker-lab", "child-device", "parent-device",
            ]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "HearthFleet", "PermissionKit", "DeclaredAgeRange", "ParentKit", "ZeroMQ", "HearthService",
                "DeviceRuntime", "FamilyBroker", "HearthClient", "HearthCore", "HearthProtocol", "HearthTransport",
                "family-broker", "family-broker-lab", "child-device", "parent-device", "hearthctl",
                "hearth-loadtest",
                "hearth-fleet", "HearthLoad",
                // Read-only look at the broker's database: hostile input must leave it unchanged.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The compiler holds the module rules: what a module imports is internal unless marked `public import`, a member is
// visible only where its module is imported, and existential types are spelled `any`.
for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
