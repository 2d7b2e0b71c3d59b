// Decode throughput and allocations per decode, for each allocator, on the generated assets.
// The 4000x3000 photo is made on demand (never committed): run
//   swift run -c release retention assets generate /tmp/retention-large --only photo-4000x3000-01.png
// from the package root first, or set RETENTION_LARGE_PNG to another 4000x3000 PNG.
import Benchmark
import Foundation
import Imaging

private let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private func load(_ path: String) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: path)) }

let benchmarks: @Sendable () -> Void = {
    let inputs: [(String, String)] = [
        ("1200x900", root.path + "/assets/images/photo-1200x900-01.png"),
        ("4000x3000", ProcessInfo.processInfo.environment["RETENTION_LARGE_PNG"] ?? "/tmp/retention-large/photo-4000x3000-01.png"),
    ]
    let allocators: [(String, BitmapAllocator)] = [
        ("system", .system), ("pageMapped", .pageMapped), ("pooled", .pooled(capacity: 256 << 20)),
    ]
    for (size, path) in inputs {
        guard let data = load(path) else {
            print("DecodeBenchmarks: \(path) is missing; skipping the \(size) benchmarks (see the note at the top of this file)")
            continue
        }
        let pixels = try! ImageInfo(data: data).decodedByteCount
        for (name, allocator) in allocators {
            Benchmark("decode \(size) \(name)",
                      configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
                                           scalingFactor: .one, maxDuration: .seconds(5), maxIterations: 50)) { benchmark in
                for _ in benchmark.scaledIterations {
                    let bitmap = try PNGDecoder().decode(data, allocator: allocator)
                    precondition(bitmap.byteCount == pixels)
                    blackHole(bitmap)
                }
            }
        }
    }
}
