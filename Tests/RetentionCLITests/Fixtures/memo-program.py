# A Python memo soaked from outside (ExecSoakCommandTests, tools/soak-own-code.sh): ten 40 KB
# values an iteration into functools.lru_cache, bounded at 256 entries (full at iteration 26)
# or unbounded; prints the soak's marker after each iteration and runs until the soak ends it.
# Usage: python3 memo-program.py bounded|unbounded
import functools, sys, time
@functools.lru_cache(maxsize=None if sys.argv[1] == "unbounded" else 256)
def render(key):
    value = bytearray(40_000)
    for j in range(0, 40_000, 4096): value[j] = 1
    return value
key = 0
while True:
    for _ in range(10):
        key += 1
        render(key)
    print("RETENTION-ITERATION", flush=True)
    time.sleep(0.01)
