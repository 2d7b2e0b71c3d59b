import MemoryProbe
import SystemIO
import Testing

/// Measurements of a real process's memory. Each runs in a fresh `MemoryCheck` child process,
/// because tests in one process run in parallel and disturb each other's resident memory.
@Suite("Measuring a process")
struct ResidentMemoryTests {
    /// Runs `MemoryCheck <name>` (built beside the test bundle) and parses its `key value` lines.
    static func measure(_ name: String) throws -> [String: Int] {
        let here = try #require(FileIO.executablePath, "the test bundle's path from /proc/self/exe")
        let outcome = try ChildProcess(executable: FileIO.directory(of: here) + "/MemoryCheck", arguments: [name]).run()
        let output = String(decoding: outcome.stdout, as: UTF8.self)
        #expect(outcome.exitStatus == 0, "MemoryCheck \(name): \(output)")
        var values: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    /// Whether `value` is within `fraction` of `target`.
    static func near(_ value: Int?, _ target: Int?, within fraction: Double) -> Bool {
        guard let value, let target else { return false }
        return abs(Double(value - target)) <= Double(target) * fraction
    }

    @Test("64 MB of touched anonymous pages move resident memory by 64 MB ± 5%, and back after munmap")
    func mappingMovesResident() throws {
        let m = try Self.measure("mmap")
        #expect(Self.near(m["grew"], m["size"], within: 0.05), "\(m)")
        #expect(Self.near(m["dropped"], m["size"], within: 0.05), "\(m)")
    }

    @Test("resetting the peak brings VmHWM back down to VmRSS")
    func peakReset() throws {
        let m = try Self.measure("peak-reset")
        #expect(m["aboveBefore"]! >= m["size"]! * 95 / 100, "\(m)")
        #expect(m["aboveAfter"]! <= 4 << 20, "\(m)")
    }

    @Test("mallinfo2 in-use heap rises by ≈ N after malloc of N bytes in small blocks and falls after free")
    func heapTracksMalloc() throws {
        let m = try Self.measure("heap-malloc")
        let total = m["total"]!
        // Each 256-byte block takes a 272-byte chunk (+6.25%); tcache keeps a few chunks in use.
        #expect(m["rose"]! >= total * 95 / 100 && m["rose"]! <= total * 110 / 100, "\(m)")
        #expect(m["fell"]! >= total * 90 / 100 && m["net"]! <= 8 << 10, "\(m)")
    }

    @Test("freed heap stays resident as free-but-held until trimHeap gives it back")
    func trimReleasesHeldMemory() throws {
        let m = try Self.measure("heap-trim")
        let total = m["total"]!
        #expect(m["released"] == 1, "\(m)")
        #expect(m["freeHeldRose"]! >= total * 95 / 100, "\(m)")
        #expect(m["residentDropped"]! >= total * 80 / 100, "\(m)")
    }

    @Test("a 64 MB page-mapped bitmap moves resident memory by 64 MB ± 5%, and back when released")
    func pageMappedBitmap() throws {
        let m = try Self.measure("bitmap-page-mapped")
        #expect(Self.near(m["grew"], m["size"], within: 0.05), "\(m)")
        #expect(Self.near(m["dropped"], m["size"], within: 0.05), "\(m)")
    }
}

/// Hostile input must not cost memory its real content does not justify.
@Suite("Hostile PNG memory")
struct HostilePNGMemoryTests {
    @Test("a PNG whose ancillary chunk claims 2 GiB costs under 1 MB to decode, thumbnail and inspect")
    func hugeChunkLengths() throws {
        let m = try ResidentMemoryTests.measure("huge-chunks")
        #expect(m.count == 8, "\(m)")
        for (key, growth) in m {
            #expect(growth < 1_000_000, "\(key): peak grew \(growth) bytes")
        }
    }
}
