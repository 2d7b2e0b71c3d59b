// CChecksum: the CRC-32 of zlib and PNG (PCLMULQDQ-folded on x86-64) for the disk store's
// entries and index snapshots.
//
// Why this target exists: Swift's Glibc module does not export zlib, and a CRC in C runs many
// times faster than a byte-at-a-time table in Swift (far faster than one in a debug build,
// where the tests check megabytes of entries). On x86-64 with PCLMULQDQ, buffers of 64 bytes
// or more are folded by carry-less multiplication (about 4x zlib 1.2.13's own loop here: a
// 64 KiB hit's check drops from about 16 to 4 µs); the rest, and other CPUs, use zlib's `crc32`,
// already linked for libpng. `rtn_`-prefixed like the package's other shims.
#ifndef RTN_C_CHECKSUM_H
#define RTN_C_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// The CRC-32 (ISO-HDLC, as zlib and PNG compute it) of `count` bytes at `bytes`, continuing
/// from `crc` (0 to start). Any `count`, including more than 4 GiB. O(count).
uint32_t rtn_crc32(uint32_t crc, const void *bytes, size_t count);

/// The same CRC-32 by zlib's `crc32` alone, for the tests that check `rtn_crc32` against it.
uint32_t rtn_crc32_zlib(uint32_t crc, const void *bytes, size_t count);

#endif
