import Glibc
import MemoryProbe
import SystemIO
import Testing

@Suite("Reading /proc files")
struct ReaderTests {
    static let missing = "/nonexistent/memoryprobe"

    // MARK: - Missing and unreadable files

    @Test("a missing statm is an error naming the file and the reason")
    func missingStatm() {
        #expect(errorText { try ResidentMemory(path: "\(Self.missing)/statm") }
            == "cannot read /nonexistent/memoryprobe/statm: No such file or directory")
    }

    @Test("a missing status or smaps_rollup is an error naming the file")
    func missingDetailFiles() {
        #expect(errorText { try ProcessMemory.readStatus(path: "\(Self.missing)/status") }
            == "cannot read /nonexistent/memoryprobe/status: No such file or directory")
        #expect(errorText { try ProcessMemory.readSmapsRollup(path: "\(Self.missing)/smaps_rollup") }
            == "cannot read /nonexistent/memoryprobe/smaps_rollup: No such file or directory")
        #expect(errorText { try ProcessMemory.snapshot(statusPath: "\(Self.missing)/status") }
            == "cannot read /nonexistent/memoryprobe/status: No such file or directory")
    }

    @Test("a folder or device in place of a /proc file is refused at open, naming it")
    func unreadable() throws {
        #expect(errorText { try ProcessMemory.readStatus(path: "/") } == "cannot read /: it is a folder, not a regular file")
        #expect(errorText { try ResidentMemory(path: "/") } == "cannot read /: it is a folder, not a regular file")
        #expect(errorText { try ResidentMemory(path: "/dev/zero") } == "cannot read /dev/zero: it is a character device, not a regular file")
    }

    @Test("resetting the peak through a missing clear_refs names the file and what it needs")
    func missingClearRefs() {
        #expect(errorText { try ProcessMemory.resetPeak(path: "\(Self.missing)/clear_refs") }
            == "cannot reset the peak resident size through /nonexistent/memoryprobe/clear_refs: "
            + "No such file or directory (errno 2) (needs Linux 4.0+ with a writable clear_refs)")
    }

    @Test("a file this process maps counts in its resident memory; one it reads with pread does not")
    func mappedResidentOfThisProcessIsRead() throws {
        let folder = "/tmp/retention-mapped-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileIO.createDirectories(folder)
        defer { _ = try? FileIO.removeTree(folder) }
        let path = folder + "/file"
        let bytes = 256 * 1024
        try FileIO.replace(path, with: [UInt8](repeating: 7, count: bytes))
        // Read through the page cache: nothing of it is mapped.
        _ = try FileIO.readAll(path, limit: bytes)
        #expect(try ProcessMemory.readMappedResident(under: folder) == 0)
        let file = try FileDescriptor.open(path, .readOnly)
        let mapped = try #require(mmap(nil, bytes, PROT_READ, MAP_SHARED, file.rawValue, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(mapped, bytes) }
        var sum = 0
        for offset in stride(from: 0, to: bytes, by: 4096) { sum += Int(mapped.load(fromByteOffset: offset, as: UInt8.self)) }
        #expect(sum == 7 * bytes / 4096)
        #expect(try ProcessMemory.readMappedResident(under: folder) == bytes, "every page touched is resident, and counted")
        #expect(try ProcessMemory.readMappedResident(under: folder + "/other") == 0)
    }

    // MARK: - Fixture files

    @Test("ResidentMemory re-reads its file from the start on every sample")
    func samplerRereads() throws {
        let file = TempFile(contents: Fixtures.statm)
        let sampler = try ResidentMemory(path: file.path, pageSize: 4096)
        #expect(try sampler.residentBytes() == 408 * 4096)
        file.replace(with: "900 512 380 5 0 200 0\n")
        #expect(try sampler.residentBytes() == 512 * 4096)
        #expect(try sampler.sample().virtualBytes == 900 * 4096)
    }

    @Test("a malformed statm file names the file")
    func samplerMalformedFile() throws {
        let file = TempFile(contents: "garbage\n")
        let sampler = try ResidentMemory(path: file.path, pageSize: 4096)
        #expect(errorText { try sampler.sample() } == "\(file.path) line 1: expected 7 page counts in \"garbage\"")
    }

    @Test("an overlong statm file is an error, not a truncated reading")
    func samplerOverlong() throws {
        let file = TempFile(contents: String(repeating: "1 ", count: 200))
        let sampler = try ResidentMemory(path: file.path, pageSize: 4096)
        guard case let .malformed(path, _, _, reason) = thrownError({ try sampler.sample() }) else {
            Issue.record("expected a malformed error")
            return
        }
        #expect(path == file.path)
        #expect(reason == "longer than 256 bytes")
    }

    @Test("status and smaps_rollup read from files, errors naming them")
    func detailFromFiles() throws {
        let status = TempFile(contents: Fixtures.status)
        #expect(try ProcessMemory.readStatus(path: status.path).fileBytes == 1624 * 1024)
        let rollup = TempFile(contents: Fixtures.smapsRollup)
        #expect(try ProcessMemory.readSmapsRollup(path: rollup.path).pssBytes == 518 * 1024)
        status.replace(with: "VmRSS: 12 MB\n")
        #expect(errorText { try ProcessMemory.readStatus(path: status.path) }
            == "\(status.path) line 1: expected \"<number> kB\" after VmRSS: in \"VmRSS: 12 MB\"")
    }

    @Test("a status file larger than one read chunk is read whole")
    func largeStatusFile() throws {
        let padding = String(repeating: "Filler:\t0000000000000000\n", count: 400)
        let file = TempFile(contents: padding + Fixtures.status)
        #expect(try ProcessMemory.readStatus(path: file.path).residentBytes == 1736 * 1024)
    }

    // MARK: - This process

    @Test("this process's figures are real and consistent")
    func liveReadings() throws {
        let status = try ProcessMemory.readStatus()
        #expect(status.residentBytes > 0)
        #expect(status.peakResidentBytes >= status.residentBytes)
        #expect(status.residentBytes == status.anonymousBytes + status.fileBytes + status.sharedMemoryBytes)
        let rollup = try ProcessMemory.readSmapsRollup()
        #expect(rollup.rssBytes > 0)
        #expect(rollup.pssBytes > 0 && rollup.pssBytes <= rollup.rssBytes)
        let statm = try ResidentMemory().sample()
        #expect(statm.residentBytes > 0 && statm.virtualBytes > statm.residentBytes)
        #expect(try ProcessMemory.residentBytes() > 0)
        #expect(ProcessMemory.pageSize >= 4096)
    }

    @Test("a snapshot carries the kernel's and the allocator's figures")
    func liveSnapshot() throws {
        let snapshot = try ProcessMemory.snapshot()
        #expect(snapshot.residentBytes > 0)
        #expect(snapshot.peakResidentBytes >= snapshot.residentBytes)
        #expect(snapshot.anonymousBytes > 0 && snapshot.fileBytes > 0)
        #expect(snapshot.heapInUseBytes > 0)
        let heap = try ProcessMemory.heapStatistics()
        #expect(heap.arenaBytes > 0)
    }

    @Test("smaps_rollup of a process by its pid: ours reads, a gone one is an error naming its file")
    func smapsRollupByProcessID() throws {
        let rollup = try ProcessMemory.readSmapsRollup(processID: getpid())
        #expect(rollup.anonymousBytes > 0 && rollup.privateDirtyBytes > 0 && rollup.rssBytes >= rollup.anonymousBytes)
        #expect(ProcPaths.smapsRollup(processID: 42) == "/proc/42/smaps_rollup")
        #expect(errorText { try ProcessMemory.readSmapsRollup(processID: 2_147_483_000) }
            == "cannot read /proc/2147483000/smaps_rollup: No such file or directory")
    }
}
