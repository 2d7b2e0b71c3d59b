"""wuffs-decode.py: Wuffs as a decode peer of tools/decode-vs-libpng.sh --corpus, through its
Python binding pywuffs (PyPI).

Decodes each PNG file given to RGBA8 (PixelFormat.RGBA_NONPREMUL) with Wuffs's defaults, from
the file's path (pywuffs reads it), in one process, and prints one line per file as the C
harnesses do (decode-harness.h): <decoded bytes> <seconds> <a bit of the pixels>. With no file
it imports (numpy too), configures the decoder and exits: the interpreter's start-up, which the benchmark
measures and subtracts. With `--dump DIR` first, also writes the N-th file's pixels to
DIR/N.rgba. Exit 1 when any file fails.
"""
import sys
import time

# pywuffs returns numpy arrays and imports numpy only at the first decode: imported here, so that
# the empty run's start-up includes it.
import numpy  # noqa: F401
from pywuffs import ImageDecoderType, PixelFormat
from pywuffs.aux import ImageDecoder, ImageDecoderConfig

config = ImageDecoderConfig()
config.enabled_decoders = [ImageDecoderType.PNG]
config.pixel_format = PixelFormat.RGBA_NONPREMUL
decoder = ImageDecoder(config)

files = sys.argv[1:]
folder = None
if files[:1] == ["--dump"]:
    folder, files = files[1], files[2:]
status = 0
for index, path in enumerate(files, 1):
    started = time.monotonic()
    result = decoder.decode(path)
    elapsed = time.monotonic() - started
    if result.error_message:
        print(f"{path}: {result.error_message}", file=sys.stderr)
        status = 1
        continue
    pixels = result.pixbuf
    # Touch the result, as the C harnesses do.
    print(f"{pixels.nbytes} {elapsed:.6f} {int(pixels.reshape(-1)[::4096].sum()) & 1}")
    if folder is not None:
        with open(f"{folder}/{index}.rgba", "wb") as out:
            out.write(pixels.tobytes())
sys.exit(status)
