// swift-tools-version:6.1
// Retention: an image-cache memory manager and the lab that measures it.
// Dependencies point one way: RetentionCLI → RetentionTool → Lab → {Scenario, Retention, Visibility,
// MemoryProbe, CProcessShim}, Scenario → {Visibility, Retention}, Retention → {Imaging, MemoryProbe}, Imaging → {CPNG, SystemIO},
// MemoryProbe → {CMemoryShim, SystemIO}. SystemIO and Visibility depend on no other module of ours.
// docs/ARCHITECTURE.md holds the graph; tools/check-architecture.sh checks it. Linux (glibc) only.
import PackageDescription

let package = Package(
    name: "Retention",
    products: [
        .library(name: "Imaging", targets: ["Imaging"]),
        .library(name: "Retention", targets: ["Retention"]),
        .library(name: "Visibility", targets: ["Visibility"]),
        .library(name: "MemoryProbe", targets: ["MemoryProbe"]),
        .library(name: "Scenario", targets: ["Scenario"]),
        .library(name: "Lab", targets: ["Lab"]),
        .executable(name: "retention", targets: ["RetentionCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "CPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        // POSIX file I/O with one error type: capped reads, atomic replace, special-file rules.
        .target(name: "SystemIO"),
        .target(name: "Imaging", dependencies: ["CPNG", "SystemIO"]),
        .target(name: "Retention", dependencies: ["Imaging", "MemoryProbe", "SystemIO"]),
        .target(name: "Visibility"),
        .target(name: "CMemoryShim"),
        .target(name: "MemoryProbe", dependencies: ["CMemoryShim", "SystemIO"]),
        .target(name: "CProcessShim"),
        // The scenario and trace file formats, parsed once into typed values.
        .target(name: "Scenario", dependencies: ["Visibility", "Retention", "SystemIO"]),
        .target(name: "Lab", dependencies: ["Scenario", "Retention", "Visibility", "MemoryProbe", "Imaging", "CProcessShim", "SystemIO"]),
        // What the tool prints and plans: text, tables, JSON lines, the thumbnail batch.
        .target(name: "RetentionTool", dependencies: ["Lab", "Visibility", "Imaging", "MemoryProbe", "CProcessShim", "SystemIO"]),
        .executableTarget(
            name: "RetentionCLI",
            dependencies: [
                "RetentionTool", "Lab", "Scenario", "Imaging", "MemoryProbe", "Retention", "CProcessShim", "SystemIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Runs memory measurements alone in a child process for the tests (see its main.swift).
        .executableTarget(name: "MemoryCheck", dependencies: ["MemoryProbe", "Imaging"]),
        // Helpers every test target shares: package root, corpora, temporary folders, SplitMix64.
        .target(name: "RetentionTestSupport", path: "Tests/RetentionTestSupport"),
        .testTarget(name: "CPNGTests", dependencies: ["CPNG"]),
        .testTarget(name: "SystemIOTests", dependencies: ["SystemIO"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "SystemIO", "RetentionTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "RetentionTests", dependencies: ["Retention", "SystemIO", "RetentionTestSupport"]),
        .testTarget(name: "VisibilityTests", dependencies: ["Visibility", "RetentionTestSupport"]),
        .testTarget(name: "MemoryProbeTests", dependencies: ["MemoryProbe", "MemoryCheck", "SystemIO"]),
        .testTarget(name: "ScenarioTests", dependencies: ["Scenario", "RetentionTestSupport"]),
        .testTarget(name: "LabTests", dependencies: ["Lab", "Scenario", "RetentionTestSupport"]),
        .testTarget(name: "RetentionToolTests", dependencies: ["RetentionTool", "Lab", "Visibility"]),
        .testTarget(name: "RetentionCLITests", dependencies: ["RetentionCLI", "RetentionTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
