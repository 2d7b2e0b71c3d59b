// CChecksum: zlib's CRC-32 for the disk store's entries and index snapshots.
//
// Why this target exists: Swift's Glibc module does not export zlib, and zlib's `crc32` (with
// its braided, word-at-a-time loop) runs several times faster than a byte-at-a-time table in
// Swift, and far faster than one in a debug build, where the tests check megabytes of entries.
// zlib is already linked for libpng. One function, `rtn_`-prefixed like the package's other shims.
#ifndef RTN_C_CHECKSUM_H
#define RTN_C_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// The CRC-32 (ISO-HDLC, as zlib and PNG compute it) of `count` bytes at `bytes`, continuing
/// from `crc` (0 to start). Any `count`, including more than 4 GiB. O(count).
uint32_t rtn_crc32(uint32_t crc, const void *bytes, size_t count);

#endif
