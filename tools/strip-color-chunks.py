#!/usr/bin/env python3
"""Copy a PNG without its gAMA, cHRM, sRGB and iCCP chunks.

ImageMagick 6 applies the gAMA chunk when it reads a PNG, so its RGBA output is not the stored
samples. Removing these ancillary chunks (every other chunk is copied byte for byte, CRCs
included) makes ImageMagick report the samples as stored, which is what our decoder promises.
Usage: strip-color-chunks.py IN OUT
"""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
out = bytearray(data[:8])
i = 8
while i + 8 <= len(data):
    (length,) = struct.unpack(">I", data[i:i + 4])
    kind = data[i + 4:i + 8]
    end = i + 12 + length
    if kind not in (b"gAMA", b"cHRM", b"sRGB", b"iCCP"):
        out += data[i:end]
    i = end
out += data[i:]
open(dst, "wb").write(out)
