import MemoryProbe
import SystemIO
import Testing

@Suite("Parsing /proc text")
struct ParsingTests {
    // MARK: - statm

    @Test("statm page counts become bytes")
    func statmConvertsPages() throws {
        let sample = try ProcessMemory.parseStatm(Fixtures.statm, pageSize: 4096)
        #expect(sample == StatmSample(
            virtualBytes: 765 * 4096, residentBytes: 408 * 4096, sharedBytes: 380 * 4096,
            textBytes: 5 * 4096, dataBytes: 123 * 4096
        ))
    }

    @Test("statm uses the page size it is given (16 KiB pages)")
    func statmHonoursPageSize() throws {
        let sample = try ProcessMemory.parseStatm("10 7 3 1 0 2 0", pageSize: 16384)
        #expect(sample.residentBytes == 7 * 16384)
        #expect(sample.virtualBytes == 10 * 16384)
    }

    @Test("statm parses from a Substring")
    func statmFromSubstring() throws {
        let text = "xx" + Fixtures.statm
        let sample = try ProcessMemory.parseStatm(text.dropFirst(2), pageSize: 4096)
        #expect(sample.residentBytes == 408 * 4096)
    }

    @Test("statm with a letter names the file, line 1 and the text")
    func statmRejectsLetters() {
        #expect(errorText { try ProcessMemory.parseStatm("765 408 3a0 5 0 123 0\n", pageSize: 4096) }
            == #"/proc/self/statm line 1: expected 7 page counts in "765 408 3a0 5 0 123 0""#)
    }

    @Test("statm malformed cases are errors, never zeros", arguments: [
        ("", "expected 7 page counts"),
        ("765 408\n", "expected 7 page counts"),
        ("765 408 380 5 0 123 0 junk\n", "unexpected text after 7 page counts"),
        ("765 99999999999999999999 380 5 0 123 0\n", "expected 7 page counts"),
        ("765 4503599627370496 380 5 0 123 0\n", "page count times page size 4096 overflows"),
    ])
    func statmMalformed(text: String, reason: String) {
        let error = thrownError { try ProcessMemory.parseStatm(text, pageSize: 4096, source: "fixture/statm") }
        guard case let .malformed(path, line, _, actualReason) = error else {
            Issue.record("expected a malformed error, got \(String(describing: error))")
            return
        }
        #expect(path == "fixture/statm")
        #expect(line == 1)
        #expect(actualReason == reason)
    }

    // MARK: - status

    @Test("status memory lines become bytes")
    func statusParses() throws {
        let status = try ProcessMemory.parseStatus(Fixtures.status)
        #expect(status == ProcessStatus(
            residentBytes: 1736 * 1024, peakResidentBytes: 1736 * 1024, anonymousBytes: 112 * 1024,
            fileBytes: 1624 * 1024, sharedMemoryBytes: 0
        ))
    }

    @Test("status without RssShmem (Linux before 4.5) names the missing line")
    func statusMissingField() {
        let old = Fixtures.status.split(separator: "\n").filter { !$0.hasPrefix("RssShmem") }.joined(separator: "\n")
        #expect(errorText { try ProcessMemory.parseStatus(old) } == "/proc/self/status: no RssShmem line")
    }

    @Test("status with a bad value names the file and the line number")
    func statusMalformedValue() {
        let bad = Fixtures.status.replacingFirst("VmRSS:\t    1736 kB", with: "VmRSS:\t    17x6 kB")
        #expect(errorText { try ProcessMemory.parseStatus(bad) }
            == #"/proc/self/status line 23: expected "<number> kB" after VmRSS: in "VmRSS:\t    17x6 kB""#)
    }

    @Test("status with a value but no unit is malformed")
    func statusMissingUnit() {
        let bad = Fixtures.status.replacingFirst("VmHWM:\t    1736 kB", with: "VmHWM:\t    1736")
        let error = thrownError { try ProcessMemory.parseStatus(bad, source: "fixture/status") }
        #expect(error == .malformed(path: "fixture/status", line: 22, text: "VmHWM:\t    1736",
                                    reason: #"expected "<number> kB" after VmHWM:"#))
    }

    @Test("status lines MemoryProbe does not read are not parsed")
    func statusSkipsOtherLines() throws {
        let text = "Name:\tweird: name kB\nVmHWM: 2 kB\nVmRSS: 1 kB\nRssAnon: 0 kB\nRssFile: 1 kB\nRssShmem: 0 kB\nSigQ:\t0/96365"
        let status = try ProcessMemory.parseStatus(text)
        #expect(status.residentBytes == 1024)
        #expect(status.peakResidentBytes == 2048)
    }

    @Test("empty status is missing VmRSS")
    func statusEmpty() {
        #expect(errorText { try ProcessMemory.parseStatus("") } == "/proc/self/status: no VmRSS line")
    }

    // MARK: - smaps_rollup

    @Test("smaps_rollup of Linux 6.x, header line skipped")
    func smapsParses() throws {
        let rollup = try ProcessMemory.parseSmapsRollup(Fixtures.smapsRollup)
        #expect(rollup == SmapsRollup(
            rssBytes: 1680 * 1024, pssBytes: 518 * 1024,
            sharedCleanBytes: 1500 * 1024, sharedDirtyBytes: 0,
            privateCleanBytes: 68 * 1024, privateDirtyBytes: 112 * 1024,
            referencedBytes: 1680 * 1024, anonymousBytes: 112 * 1024, lazyFreeBytes: 0,
            anonHugePagesBytes: 0, swapBytes: 0, lockedBytes: 0,
            pssAnonBytes: 112 * 1024, pssFileBytes: 406 * 1024, pssShmemBytes: 0, pssDirtyBytes: 112 * 1024
        ))
    }

    @Test("smaps_rollup of Linux 4.14 has no Pss breakdown")
    func smapsOldKernel() throws {
        let rollup = try ProcessMemory.parseSmapsRollup(Fixtures.smapsRollupLinux414)
        #expect(rollup.rssBytes == 29568 * 1024)
        #expect(rollup.privateDirtyBytes == 18128 * 1024)
        #expect(rollup.anonHugePagesBytes == 10240 * 1024)
        #expect(rollup.pssAnonBytes == nil)
        #expect(rollup.pssFileBytes == nil)
        #expect(rollup.pssShmemBytes == nil)
        #expect(rollup.pssDirtyBytes == nil)
    }

    @Test("smaps_rollup with a bad value names the line")
    func smapsMalformed() {
        let bad = Fixtures.smapsRollup.replacingFirst("Pss:                 518 kB", with: "Pss:                 lots kB")
        #expect(errorText { try ProcessMemory.parseSmapsRollup(bad) }
            == #"/proc/self/smaps_rollup line 3: expected "<number> kB" after Pss: in "Pss:                 lots kB""#)
    }

    @Test("smaps_rollup without Rss names the missing line")
    func smapsMissing() {
        let bad = Fixtures.smapsRollup.replacingFirst("Rss:", with: "Rsx:")
        #expect(errorText { try ProcessMemory.parseSmapsRollup(bad) } == "/proc/self/smaps_rollup: no Rss line")
    }

    // MARK: - Error text

    @Test("errno errors read as strerror text")
    func errnoDescriptions() {
        #expect(MemoryProbeError.io(SystemError(path: "/proc/self/statm", operation: "read", reason: .errno(5))).description
            == "cannot read /proc/self/statm: Input/output error")
        #expect(MemoryProbeError.cannotResetPeak(path: "/proc/self/clear_refs", errno: 22).description
            == "cannot reset the peak resident size through /proc/self/clear_refs: Invalid argument (errno 22) (needs Linux 4.0+ with a writable clear_refs)")
    }
}

extension String {
    /// This text with the first occurrence of `target` replaced (no Foundation in these tests).
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }

    // MARK: - smaps

    @Test("smaps: the Rss of mappings of files under a folder, not of a folder that only starts like it")
    func mappedResident() throws {
        #expect(try ProcessMemory.parseMappedResident(Fixtures.smaps, under: "/var/tmp/store") == 12 * 1024)
        #expect(try ProcessMemory.parseMappedResident(Fixtures.smaps, under: "/var/tmp/store-2") == 20 * 1024)
        #expect(try ProcessMemory.parseMappedResident(Fixtures.smaps, under: "/var/tmp/store/entries") == 8 * 1024)
        #expect(try ProcessMemory.parseMappedResident(Fixtures.smaps, under: "/elsewhere") == 0)
        #expect(try ProcessMemory.parseMappedResident("", under: "/var/tmp/store") == 0)
    }

    @Test("smaps: a matching mapping's bad Rss line names the file and the line")
    func mappedResidentMalformed() throws {
        let bad = Fixtures.smaps.replacingFirst("Rss:                   8 kB", with: "Rss:                   8 MB")
        #expect(throws: MemoryProbeError.malformed(path: "/proc/self/smaps", line: 3, text: "Rss:                   8 MB",
                                                   reason: "expected \"<number> kB\" after Rss:")) {
            try ProcessMemory.parseMappedResident(bad, under: "/var/tmp/store")
        }
        // A bad line in a mapping that does not match is not read.
        #expect(try ProcessMemory.parseMappedResident(bad, under: "/var/tmp/store-2") == 20 * 1024)
    }
}
