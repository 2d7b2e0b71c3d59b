import Foundation
import SystemIO
import Testing

/// The hostile caller's cases, each in a child process of its own (the `HostileCallerCheck`
/// executable) with a timeout: a trap ends only that child, and a deadlock (one that takes
/// every cooperative thread would stop the test runner itself if run in process) is killed at
/// the timeout. Either fails the case by name; the rest of the run goes on.
@Suite("Hostile callers, each in a child process")
struct HostileCallerClientTests {
    /// `HostileCallerCheck` beside the test bundle (SwiftPM builds it before these tests).
    static let executable = FileIO.directory(of: FileIO.executablePath ?? CommandLine.arguments[0]) + "/HostileCallerCheck"

    /// The cases run below.
    static let cases = [
        "page-mapped-bitmap-past-int-max", "thumbnail-geometry-past-int-max", "byte-size-not-finite", "soak-units-not-finite",
        "soak-negative-warm-up", "synchronous-cache-async-source-from-tasks", "synchronous-fetch-timeout",
        "prefetch-cancel-idle-100k", "nested-fetches-under-fetch-limit", "disk-store-opened-twice", "disk-store-below-one-entry",
    ]

    @Test("each hostile case keeps the library's promise: no trap, no hang, the documented answer", arguments: cases)
    func hostileCase(_ name: String) throws {
        let outcome = try ChildProcess(executable: Self.executable, arguments: [name], timeoutSeconds: 120).run()
        let printed = String(decoding: outcome.stdout + outcome.stderr, as: UTF8.self)
        #expect(!outcome.timedOut, "\(name): still running after 120 s, killed (a deadlock or an unbounded wait): \(printed)")
        #expect(outcome.signal == nil, "\(name): ended by signal \(outcome.signal ?? 0) (a trap): \(printed)")
        #expect(outcome.exitStatus == 0 && printed.hasPrefix("ok: "), "\(name): \(printed)")
    }

    @Test("every case the client knows is run above, and an unknown case is a usage error")
    func everyCaseIsRun() throws {
        let listed = try ChildProcess(executable: Self.executable, arguments: ["--list"], timeoutSeconds: 30).run()
        #expect(listed.exitStatus == 0)
        let text = String(decoding: listed.stdout, as: UTF8.self)
        let names = text.split(separator: ":").last.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } } ?? []
        #expect(names.sorted() == Self.cases.sorted(), "a case the client knows is not run, or the reverse: \(text)")
        let unknown = try ChildProcess(executable: Self.executable, arguments: ["nope"], timeoutSeconds: 30).run()
        #expect(unknown.exitStatus == 64)
    }
}
