#include "CChecksum.h"
#include <limits.h>
#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>

// CRC-32 by carry-less multiplication (PCLMULQDQ), folding 64 bytes at a time: Intel's "Fast
// CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction" (2009), with the
// bit-reflected constants for zlib's polynomial, as Chromium's zlib computes it. About four
// times zlib's own loop on this machine. `crc` and the result are not inverted here (the
// caller inverts); `count` is at least 64 and a multiple of 16.
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc32_folded(const unsigned char *p, size_t count, uint32_t crc) {
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124);
    const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    const __m128i mask = _mm_setr_epi32(~0, 0, ~0, 0);

    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 0x00));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 0x10));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 0x20));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(p + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    p += 64;
    count -= 64;
    while (count >= 64) {
        __m128i x5 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
        __m128i x6 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
        __m128i x7 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
        __m128i x8 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
        x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
        x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
        x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128((const __m128i *)(p + 0x00)));
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), _mm_loadu_si128((const __m128i *)(p + 0x10)));
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), _mm_loadu_si128((const __m128i *)(p + 0x20)));
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), _mm_loadu_si128((const __m128i *)(p + 0x30)));
        p += 64;
        count -= 64;
    }
    // Fold the four lanes into one.
    __m128i x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x2), x5);
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x3), x5);
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x4), x5);
    // Then 16 bytes at a time.
    while (count >= 16) {
        x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), _mm_loadu_si128((const __m128i *)p)), x5);
        p += 16;
        count -= 16;
    }
    // 128 bits to 64, then to 32 by Barrett reduction.
    x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, mask);
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k5k0, 0x00), x2);
    x2 = _mm_and_si128(x1, mask);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
    x2 = _mm_and_si128(x2, mask);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

static int has_pclmul(void) {
    static int known = -1;
    if (known < 0) known = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    return known;
}
#endif

static uint32_t crc32_zlib(uint32_t crc, const unsigned char *p, size_t count) {
    uLong value = crc;
    // zlib takes a uInt count: feed larger buffers in steps.
    while (count > 0) {
        uInt step = count > (size_t)UINT_MAX ? UINT_MAX : (uInt)count;
        value = crc32(value, p, step);
        p += step;
        count -= step;
    }
    return (uint32_t)value;
}

uint32_t rtn_crc32(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
#if defined(__x86_64__)
    if (count >= 64 && has_pclmul()) {
        size_t folded = count & ~(size_t)15;
        crc = ~crc32_folded(p, folded, ~crc);
        p += folded;
        count -= folded;
    }
#endif
    return crc32_zlib(crc, p, count);
}

uint32_t rtn_crc32_zlib(uint32_t crc, const void *bytes, size_t count) {
    return crc32_zlib(crc, bytes, count);
}
