#!/usr/bin/env python3
"""child_cpu.py [--peak] COMMAND...: runs COMMAND once, its standard output discarded, and prints
"CPU_SECONDS WALL_SECONDS": the child's user + system time from the kernel's accounting of the
finished process (getrusage of reaped children, to the microsecond; /usr/bin/time rounds each
part down to 10 ms) and the wall time around it. With --peak, a third field: the child's peak
resident memory in KB (its own ru_maxrss from wait4, what /usr/bin/time -v calls "Maximum
resident set size"). Exit 1, with the child's standard error, when the child fails.

The one child timer of the benchmark scripts: thumbnail-vs-decode.sh, debug-build.sh and
thumbnail-cache.sh (which imports `measure`).
"""
import os
import resource
import subprocess
import sys
import tempfile
import time


def measure(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE):
    """Runs `command` to its end; returns (cpu_seconds, wall_seconds, exit_status, stdout, stderr),
    the last two as text when piped, else None. CPU time is the growth of this process's
    reaped-children usage (getrusage(RUSAGE_CHILDREN)) across the run: the child and whatever
    it reaped, to the microsecond."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    result = subprocess.run(command, stdout=stdout, stderr=stderr, text=True, errors="replace")
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, result.returncode, result.stdout, result.stderr


def measure_peak(command):
    """Runs `command` to its end, its output discarded and its standard error kept; returns
    (cpu_seconds, wall_seconds, peak_kb, exit_status, stderr) from wait4 on that child alone:
    its user + system time and its own peak resident memory (ru_maxrss, KB)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
        err.seek(0)
        text = err.read().decode(errors="replace")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, child.returncode, text


if __name__ == "__main__":
    peak = len(sys.argv) > 1 and sys.argv[1] == "--peak"
    command = sys.argv[2:] if peak else sys.argv[1:]
    if not command:
        sys.exit("usage: tools/child_cpu.py [--peak] COMMAND...")
    if peak:
        cpu, wall, kb, status, err = measure_peak(command)
    else:
        cpu, wall, status, _, err = measure(command)
    if status != 0:
        sys.stderr.write(err or "")
        sys.exit(1)
    print(f"{cpu:.6f} {wall:.6f}" + (f" {kb}" if peak else ""))
