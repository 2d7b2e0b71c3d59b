#!/usr/bin/env python3
"""Print the FNV-1a 64-bit hash of standard input as 16 hex digits (used for pixel fixtures).

With --from16, standard input is big-endian 16-bit samples, each first scaled to 8 bits with
rounding, round(v / 257) — what libpng's png_set_scale_16 does and what our decoder promises.
"""
import sys

data = sys.stdin.buffer.read()
if "--from16" in sys.argv[1:]:
    data = bytes(((data[i] << 8 | data[i + 1]) * 2 + 257) // 514 for i in range(0, len(data) - 1, 2))
h = 0xcbf29ce484222325
for b in data:
    h ^= b
    h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
print(f"{h:016x}")
