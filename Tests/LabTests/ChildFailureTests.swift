import Foundation
import Testing
@testable import Lab
import SystemIO

/// A child that fails is reported by the line that says why, never by a backtrace, its
/// registers or its library map.
@Suite("Child failures in one line")
struct ChildFailureTests {
    /// What Swift's backtracer prints for an arithmetic overflow in a debug build (cut).
    static let overflowCrash = """

        *** Signal 4: Backtracing from 0x55da098e42c4... done ***

        *** Swift runtime failure: arithmetic overflow ***

        Platform: x86_64 Linux (Debian GNU/Linux 12 (bookworm))

        Thread 0 "retention" crashed:

          0 [inlined] [system] 0x000055da098e42c4 Swift runtime failure: arithmetic overflow in retention at //<compiler-generated>
          1                    0x000055da098e42c4 main + 628 in retention at /src/main.swift:4:3

        Registers:

        rax 0x8000000000000001  9223372036854775809

        Images (14 omitted):

        0x00007f03791e8000–0x00007f03793630fc 93ac61ec5a8eb1396f9fbd350e3169a558528a40 libc.so.6      /usr/lib/x86_64-linux-gnu/libc.so.6

        """

    static func outcome(stderr: String, status: Int32? = nil, signal: Int32? = nil) -> ChildProcess.Outcome {
        ChildProcess.Outcome(exitStatus: status, signal: signal, timedOut: false, stdout: [], stderr: Array(stderr.utf8))
    }

    @Test("the failure line: Fatal error, the runtime failure banner, the first Error line, the crash banner")
    func failureLine() {
        let fatal = "Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range\n" + Self.overflowCrash
        #expect(Self.outcome(stderr: fatal).failureLine == "Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range")
        #expect(Self.outcome(stderr: Self.overflowCrash).failureLine == "Swift runtime failure: arithmetic overflow")
        let release = Self.overflowCrash.replacingOccurrences(of: "*** Swift runtime failure: arithmetic overflow ***",
                                                              with: "*** Program crashed: Illegal instruction at 0x000055da098e42c4 ***")
        #expect(Self.outcome(stderr: release).failureLine == "Program crashed: Illegal instruction at 0x000055da098e42c4")
        #expect(Self.outcome(stderr: "progress\nError: resident memory reached 64.3 MB at frame 0 (limit 64.0 MB)\nUsage: x\n").failureLine
            == "resident memory reached 64.3 MB at frame 0 (limit 64.0 MB)")
        #expect(Self.outcome(stderr: "one\ntwo\n").failureLine == "two")
        #expect(Self.outcome(stderr: "").failureLine == "nothing on stderr")
        #expect(Self.outcome(stderr: "x", status: 0).failure(timeoutSeconds: 1) == nil)
        #expect(Self.outcome(stderr: "Error: bad\n", status: 1).failure(timeoutSeconds: 1) == "exit status 1: bad")
    }

    @Test("a child that crashes is reported by the runtime's message and its signal, in one line")
    func crashedChild() {
        // A stand-in child: prints what a crashing Swift program prints, then dies of SIGILL.
        let script = "printf '%s' \"$1\" >&2; kill -ILL $$"
        let launcher = ChildLauncher(executable: "/bin/sh", leadingArguments: ["-c", script, "sh", ChildFailureTests.overflowCrash])
        var comparison = Comparison(launcher: launcher, strategies: ["crashes"], repeats: 1, timeoutSeconds: 30) { name, _ in
            .run(.init(scenarioPath: "/nonexistent", strategy: name))
        }
        comparison.jobs = 1
        let results = comparison.run()
        #expect(results.count == 1)
        #expect(results.first?.failure == "killed by signal 4 (Illegal instruction): Swift runtime failure: arithmetic overflow")
    }
}
