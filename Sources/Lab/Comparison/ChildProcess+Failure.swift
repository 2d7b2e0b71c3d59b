import Glibc
import SystemIO

extension ChildProcess.Outcome {
    /// The one line of standard error that says why the child failed: the Swift runtime's
    /// `Fatal error: …` line, else the crash banner's `Swift runtime failure: …`, else the
    /// first `Error: …` line (without `Error: `), else the banner's `Program crashed: …`,
    /// else the last line; `nothing on stderr` when there is none. Never the backtrace,
    /// registers or library map a crash prints after it. O(stderr size).
    public var failureLine: String {
        let lines = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        // The backtracer's banners read `*** Swift runtime failure: arithmetic overflow ***`.
        func banner(_ prefix: String) -> String? {
            lines.first { $0.hasPrefix("*** " + prefix) }.map { String($0.dropFirst(4).dropLast($0.hasSuffix(" ***") ? 4 : 0)) }
        }
        if let fatal = lines.first(where: { $0.contains("Fatal error:") }) { return fatal }
        if let failure = banner("Swift runtime failure:") { return failure }
        if let error = lines.first(where: { $0.hasPrefix("Error: ") || $0.hasPrefix("error: ") }) { return String(error.dropFirst(7)) }
        return banner("Program crashed:") ?? lines.last ?? "nothing on stderr"
    }

    /// Why the child failed, in one line, or nil when it exited 0: `exit status 1: LINE`,
    /// `killed by signal 4 (Illegal instruction): LINE`, `used more than S s of CPU time
    /// (--timeout), killed`, `timed out after S s`, or `printed
    /// more than N MB on standard output`, where LINE is ``failureLine``. O(stderr size).
    /// With `cpuTimeoutSeconds` (the child had a CPU budget), `timeoutSeconds` is the wall-clock
    /// backstop and says so.
    public func failure(timeoutSeconds: Double, cpuTimeoutSeconds: Double? = nil,
                        outputLimit: Int = ChildProcess(executable: "", arguments: []).outputLimit) -> String? {
        let tail = stderr.isEmpty ? "" : "; stderr: \(failureLine)"
        if cpuTimedOut { return "used more than \(cpuTimeoutSeconds ?? timeoutSeconds) s of CPU time (\(LabTerm.timeout.spelled)), killed" + tail }
        if timedOut { return "timed out after \(timeoutSeconds) s" + (cpuTimeoutSeconds == nil ? "" : " on the wall clock (\(Int(Comparison.wallTimeoutFactor)) × \(LabTerm.timeout.spelled))") + tail }
        if outputOverLimit { return "printed more than \(SystemIO.NumberText.mb(outputLimit)) MB on standard output, the most a report may take; stopped" }
        if let signal { return "killed by signal \(signal) (\(String(cString: strsignal(signal)))): \(failureLine)" }
        if let exitStatus, exitStatus != 0 { return "exit status \(exitStatus): \(failureLine)" }
        return nil
    }
}
