import MemoryProbe
import Testing
@testable import Retention

/// How the cache takes MemoryProbe's memory warnings (the source itself is tested in
/// MemoryProbeTests).
@Suite("Memory pressure reaching the cache")
struct MemoryPressureTests {
    @Test("a memory pressure source wired to a cache trims it")
    func drivesCache() throws {
        let h = Harness(.decodedLRU)
        h.appear(1)
        h.disappear(1)
        #expect(h.usage.evictableBytes > 0)
        // Every reading's available fraction is at most 1, so this machine is "critical".
        let source = MemoryPressureSource(thresholds: .init(moderate: 1, critical: 1)) { [cache = h.cache] level in cache.memoryWarning(level) }
        #expect(source.poll() == .critical)
        #expect(h.usage.evictableBytes == 0)
        h.check()
    }
}
