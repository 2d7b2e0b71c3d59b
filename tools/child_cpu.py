#!/usr/bin/env python3
"""child_cpu.py COMMAND...: runs COMMAND once, its standard output discarded, and prints
"CPU_SECONDS WALL_SECONDS": the child's user + system time from the kernel's accounting of the
finished process (getrusage of reaped children, to the microsecond; /usr/bin/time rounds each
part down to 10 ms) and the wall time around it. Exit 1, with the child's standard error, when the child fails.

The one child timer of the benchmark scripts: thumbnail-vs-decode.sh, debug-build.sh and
thumbnail-cache.sh (which imports `measure`).
"""
import resource
import subprocess
import sys
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


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: tools/child_cpu.py COMMAND...")
    cpu, wall, status, _, err = measure(sys.argv[1:])
    if status != 0:
        sys.stderr.write(err or "")
        sys.exit(1)
    print(f"{cpu:.6f} {wall:.6f}")
