#!/usr/bin/env python3
# A program for `retention soak --exec` tests: prints RETENTION-ITERATION (flushed) after each
# iteration. Usage: soak-program.py KIND [ITERATIONS]
#   leak     keeps 100 KB more every iteration
#   bounded  keeps the last 4 buffers of 100 KB (filled before the first marker)
#   crash    like bounded, then writes a cause to stderr and aborts (SIGABRT) after 8 iterations
#   dying    like bounded, then aborts right after its 8th marker, while it is being sampled
#   stall    like bounded, then stops printing markers after 6 iterations and sleeps
#   quiet    like bounded, with no markers at all (for --every)
import collections
import os
import sys
import time

kind = sys.argv[1]
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 400
kept = [] if kind == "leak" else collections.deque(maxlen=4)
if kind != "leak":
    for n in range(4):
        kept.append(bytes([n % 251]) * 100_000)
for i in range(iterations):
    kept.append(bytes([i % 251]) * 100_000)
    if kind == "crash" and i == 8:
        print("fatal: out of widgets in iteration 9", file=sys.stderr, flush=True)
        os.abort()
    if kind == "stall" and i >= 6:
        time.sleep(600)
    if kind != "quiet":
        print("RETENTION-ITERATION", i + 1, flush=True)
    if kind == "dying" and i == 7:
        os.abort()
    time.sleep(0.01)
