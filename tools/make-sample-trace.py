#!/usr/bin/env python3
"""Writes assets/traces/sample-session.jsonl: a trace shaped like one recorded in a real app.

It is not a recording. It is synthesized, seeded and reproducible, to look like what the
`.retentionTrace(id:)` modifier of docs/recording-traces.md writes during one session with a
photo feed: a List of 240 posts (string ids), rows 260 pt tall in an 844 pt viewport, one row of
prefetch. The user reads, drags slowly, flings (iOS-like exponential deceleration, irregular
velocities), pauses, opens a post and comes back, gets a memory warning, scrolls back up, and
leaves the screen. Timestamps are seconds with the sub-millisecond jitter of a real clock.

Usage: tools/make-sample-trace.py [OUTPUT]   (default: assets/traces/sample-session.jsonl)
"""
import json
import math
import random
import sys

ROWS, ROW_HEIGHT, VIEWPORT, PREFETCH, FPS = 240, 260.0, 844.0, 1, 60
rng = random.Random(20261123)
lines = [json.dumps({"format": "retention-trace", "version": 1, "time": "seconds",
                     "note": "synthesized by tools/make-sample-trace.py to look like a photo-feed session"},
                    separators=(",", ":"))]
frame = 0
offset = 0.0
built, appeared = set(), set()
start = 1732365000.0 + rng.random()  # an arbitrary wall-clock origin, as a device would stamp


last = (-1, 0)  # (frame, events stamped in it)


def stamp():
    # A frame lasts 1/60 s; a real event lands inside its frame, after the one before it.
    global last
    k = last[1] + 1 if last[0] == frame else 0
    last = (frame, k)
    return round(start + frame / FPS + 0.0004 + 0.0003 * k + rng.uniform(0, 0.0002), 6)


def emit(event, **fields):
    lines.append(json.dumps({"seconds": stamp(), "event": event, **fields}, separators=(",", ":")))


def post(row):
    return f"post-{1000 + row}"


def laid_out():
    first = max(0, int(offset // ROW_HEIGHT) - PREFETCH)
    last = min(ROWS, int(math.ceil((offset + VIEWPORT) / ROW_HEIGHT)) + PREFETCH)
    return set(range(first, last))


def layout():
    now = laid_out()
    for row in sorted(appeared - now):
        emit("disappeared", row=post(row))
        appeared.discard(row)
    for row in sorted(now - appeared):
        if row not in built:
            # Each post shows one of the eight photos; its view state is a few KB.
            emit("initialized", row=post(row), image=row * 5 % 8, stateBytes=4096 + 512 * (row % 3))
            built.add(row)
        emit("appeared", row=post(row))
        appeared.add(row)


def advance(frames, velocity=0.0, decay=1.0):
    """Moves `frames` frames; velocity in points per second, multiplied by `decay` each frame."""
    global frame, offset
    for _ in range(frames):
        frame += 1
        offset = min(max(0.0, offset + velocity / FPS), ROWS * ROW_HEIGHT - VIEWPORT)
        velocity *= decay
        layout()


def pause(seconds):
    advance(int(seconds * FPS))


def drag(points, seconds):
    advance(int(seconds * FPS), velocity=points / seconds)


def fling(velocity):
    # UIScrollView's normal deceleration: about 0.998 per millisecond.
    advance(int(rng.uniform(1.6, 2.6) * FPS), velocity=velocity, decay=0.998 ** (1000 / FPS))


emit("containerCreated")
layout()
pause(rng.uniform(1.5, 2.5))                 # reads the first posts
drag(rng.uniform(500, 700), rng.uniform(1.0, 1.6))
pause(rng.uniform(0.6, 1.2))
for _ in range(3):                           # irregular flings down, with short looks between
    fling(rng.uniform(2500, 5200))
    pause(rng.uniform(0.3, 2.8))
tapped = min(appeared) + 1
emit("navigate", row=post(tapped))           # opens a post: the list's rows disappear
for row in sorted(appeared):
    emit("disappeared", row=post(row))
appeared.clear()
frame += int(rng.uniform(3.5, 6.0) * FPS)    # reads the post
emit("back")
layout()                                     # the rows appear again
pause(rng.uniform(0.8, 1.5))
for _ in range(4):
    fling(rng.uniform(3000, 6500))
    pause(rng.uniform(0.2, 1.8))
emit("memoryWarning")                        # the system is short of memory
pause(rng.uniform(0.5, 1.0))
for _ in range(2):                           # back up towards the top
    fling(-rng.uniform(4000, 7000))
    pause(rng.uniform(0.4, 1.5))
drag(-rng.uniform(200, 400), rng.uniform(0.8, 1.2))
pause(rng.uniform(1.0, 2.0))
frame += 1
for row in sorted(appeared):                 # leaves the screen: the list goes away
    emit("disappeared", row=post(row))
emit("containerDestroyed")

output = sys.argv[1] if len(sys.argv) > 1 else "assets/traces/sample-session.jsonl"
with open(output, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"{output}: {len(lines) - 1} events over {frame / FPS:.1f} s, {len(built)} rows built", file=sys.stderr)
