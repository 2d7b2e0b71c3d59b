// swift-tools-version:6.1
// Retention: an image-cache memory manager and the lab that measures it.
// Dependencies point one way: RetentionCLI → RetentionTool (a job per command) → Lab (the
// experiment engine) → {Scenario, Retention, Visibility, MemoryProbe, DiskCache}; RetentionTool → DiskCache;
// Scenario → {StrictJSON, Visibility, Retention, AssetGen}; Retention → {Imaging, MemoryProbe, DiskCache};
// Imaging → CPNG → CLibdeflate (libdeflate), CIsal (ISA-L); every module → SystemIO (the system layer) → CProcessShim. Visibility and
// StrictJSON depend on nothing of ours but each other. docs/ARCHITECTURE.md holds the graph;
// tools/check-architecture.sh checks it. DiskCache knows nothing of the image cache.
// Linux (glibc) only.
import PackageDescription

let package = Package(
    name: "Retention",
    products: [
        .library(name: "Imaging", targets: ["Imaging"]),
        .library(name: "Retention", targets: ["Retention"]),
        .library(name: "Visibility", targets: ["Visibility"]),
        .library(name: "MemoryProbe", targets: ["MemoryProbe"]),
        .library(name: "Scenario", targets: ["Scenario"]),
        .library(name: "StrictJSON", targets: ["StrictJSON"]),
        .library(name: "Lab", targets: ["Lab"]),
        .library(name: "DiskCache", targets: ["DiskCache"]),
        .library(name: "SoakProbe", targets: ["SoakProbe"]),
        .executable(name: "retention", targets: ["RetentionCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation`: the DocC catalogs, built in CI with no warning.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "CPNG",
            dependencies: ["CLibdeflate", "CIsal"],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("deflate"), .linkedLibrary("isal")]
        ),
        // libdeflate, the whole-image inflate of CPNG's fast path (apt-get install libdeflate-dev).
        .systemLibrary(
            name: "CLibdeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // ISA-L's igzip, the streaming inflate of CPNG's streamed rows (apt-get install libisal-dev).
        .systemLibrary(
            name: "CIsal",
            pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]
        ),
        // The system layer: files, temporary files, owned descriptors, the one spawner, signals, cores.
        .target(name: "SystemIO", dependencies: ["CProcessShim"]),
        .target(name: "Imaging", dependencies: ["CPNG", "SystemIO"]),
        // The cache; its disk tier writes through DiskCache, which knows nothing of it.
        .target(name: "Retention", dependencies: ["Imaging", "MemoryProbe", "SystemIO", "DiskCache"]),
        // The strict JSON parser, its tree decoder and the writer: one JSON policy for every file.
        .target(name: "StrictJSON"),
        .target(name: "Visibility", dependencies: ["StrictJSON"]),
        .target(name: "CMemoryShim"),
        .target(name: "MemoryProbe", dependencies: ["CMemoryShim", "SystemIO"]),
        // Soaks of your own code: the one verdict engine (slope, interval, PASS/FAIL), a closure
        // soaked in a test, another process sampled from outside.
        .target(name: "SoakProbe", dependencies: ["MemoryProbe", "SystemIO"]),
        .target(name: "CProcessShim"),
        // zlib's CRC-32 for the disk store (Swift's Glibc module does not export zlib).
        .target(name: "CChecksum", linkerSettings: [.linkedLibrary("z")]),
        // The disk tier: a crash-safe, size-bounded store of byte blobs under string keys.
        .target(name: "DiskCache", dependencies: ["CChecksum", "SystemIO"]),
        // The procedural PNG painter the default scenario and `retention assets generate` use.
        .target(name: "AssetGen", dependencies: ["Imaging", "SystemIO"]),
        // The scenario and trace file formats, parsed once into typed values.
        .target(name: "Scenario", dependencies: ["StrictJSON", "Visibility", "Retention", "Imaging", "AssetGen", "SystemIO"]),
        .target(name: "Lab", dependencies: ["StrictJSON", "Scenario", "Retention", "Visibility", "MemoryProbe", "Imaging", "SystemIO", "DiskCache", "SoakProbe"]),
        // The application layer: a job per command (the work, with progress sinks) and the text
        // that renders each outcome.
        .target(name: "RetentionTool", dependencies: ["StrictJSON", "Lab", "Scenario", "Retention", "Visibility", "Imaging", "MemoryProbe", "AssetGen", "SystemIO", "DiskCache", "SoakProbe"]),
        .executableTarget(
            name: "RetentionCLI",
            dependencies: [
                "RetentionTool", "Lab", "Imaging", "DiskCache", "SystemIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Runs memory measurements alone in a child process for the tests (see its main.swift).
        .executableTarget(name: "MemoryCheck", dependencies: ["MemoryProbe", "Imaging", "Lab", "SoakProbe", "Retention", "AssetGen", "SystemIO"]),
        // Writes and reads a disk store in a child process for the kill and multi-process tests.
        .executableTarget(name: "DiskStoreCheck", dependencies: ["DiskCache", "SystemIO", "RetentionTestSupport", "AssetGen"]),
        // Calls the libraries' public API as a hostile caller would, one case per child process,
        // so a trap or a deadlock fails that case, never the test run (see its main.swift).
        .executableTarget(name: "HostileCallerCheck", dependencies: ["DiskCache", "Imaging", "Retention", "SoakProbe", "SystemIO"]),
        // Helpers every test target shares: package root, corpora, temporary folders, mutations
        // (drawn from AssetGen's SplitMix64, the one copy).
        .target(name: "RetentionTestSupport", dependencies: ["AssetGen", "SystemIO"], path: "Tests/RetentionTestSupport"),
        .testTarget(name: "CPNGTests", dependencies: ["CPNG"]),
        .testTarget(name: "DiskCacheTests", dependencies: ["DiskCache", "DiskStoreCheck", "CChecksum", "SystemIO", "AssetGen", "RetentionTestSupport"]),
        .testTarget(name: "SystemIOTests", dependencies: ["SystemIO"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "SystemIO", "AssetGen", "RetentionTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "RetentionTests", dependencies: ["Retention", "Imaging", "MemoryProbe", "SystemIO", "AssetGen", "DiskCache", "RetentionTestSupport", "HostileCallerCheck", "MemoryCheck"]),
        .testTarget(name: "VisibilityTests", dependencies: ["Visibility", "AssetGen"]),
        .testTarget(name: "MemoryProbeTests", dependencies: ["MemoryProbe", "MemoryCheck", "SystemIO"]),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"]),
        .testTarget(name: "SoakProbeTests", dependencies: ["SoakProbe", "MemoryCheck", "SystemIO"]),
        .testTarget(name: "ScenarioTests", dependencies: ["Scenario", "Retention", "Visibility", "StrictJSON", "AssetGen", "Imaging", "RetentionTestSupport", "SystemIO"]),
        .testTarget(name: "LabTests", dependencies: ["Lab", "SoakProbe", "Scenario", "Retention", "Visibility", "AssetGen", "SystemIO", "MemoryCheck", "RetentionTestSupport", "Imaging", "DiskCache"]),
        .testTarget(name: "AssetGenTests", dependencies: ["AssetGen", "Imaging", "RetentionTestSupport"]),
        .testTarget(name: "RetentionToolTests", dependencies: ["RetentionTool", "StrictJSON", "Lab", "Visibility", "RetentionTestSupport", "SystemIO"]),
        .testTarget(name: "RetentionCLITests", dependencies: ["RetentionCLI", "AssetGen", "SystemIO", "RetentionTestSupport"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
