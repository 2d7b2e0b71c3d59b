// swift-tools-version:6.1
// Benchmarks for Retention, in their own package so the library never depends on
// package-benchmark. Run: cd Benchmarks && swift package benchmark. Linux (glibc) only, like the
// package it measures, so no platforms are declared.
import PackageDescription

let package = Package(
    name: "RetentionBenchmarks",
    dependencies: [
        .package(name: "Retention", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "DecodeBenchmarks",
            dependencies: [
                .product(name: "Imaging", package: "Retention"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/DecodeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "CacheBenchmarks",
            dependencies: [
                .product(name: "Retention", package: "Retention"),
                .product(name: "Imaging", package: "Retention"),
                .product(name: "MemoryProbe", package: "Retention"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/CacheBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "DiskStoreBenchmarks",
            dependencies: [
                .product(name: "DiskCache", package: "Retention"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/DiskStoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
