import Testing
@testable import SystemIO

/// A child's CPU budget: what it does, not how long it waited for a core.
@Suite("ChildProcess: a budget of CPU time")
struct ChildProcessCPUBudgetTests {
    @Test("a /proc/PID/stat line's utime and stime, after a command name with spaces and parentheses")
    func parses() {
        let line = "4242 (a (weird) name) R 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 1000 10 18446744073709551615"
        #expect(ChildProcess.parseCPUSeconds(stat: line, ticksPerSecond: 100) == 3.0)
        #expect(ChildProcess.parseCPUSeconds(stat: "garbage", ticksPerSecond: 100) == nil)
        #expect(ChildProcess.parseCPUSeconds(stat: "1 (x) R 1", ticksPerSecond: 100) == nil)
    }

    @Test("a child that spins past its CPU budget is killed for it; one that sleeps is not")
    func budget() throws {
        var spinner = ChildProcess(executable: "/bin/sh", arguments: ["-c", "while :; do :; done"], timeoutSeconds: 60)
        spinner.cpuTimeoutSeconds = 0.3
        let spun = try spinner.run()
        #expect(spun.timedOut && spun.cpuTimedOut)
        var sleeper = ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 1"], timeoutSeconds: 60)
        sleeper.cpuTimeoutSeconds = 0.3
        let slept = try sleeper.run()
        #expect(!slept.timedOut && !slept.cpuTimedOut && slept.exitStatus == 0, "a second asleep uses no CPU")
    }
}
