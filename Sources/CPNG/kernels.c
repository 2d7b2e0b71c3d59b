// The thumbnailer's per-pixel loops and the PNG encoder's row filter; see include/CPNGKernels.h
// for why they are C.
//
// Written with GCC/Clang vector types so that each step on a pixel is one vector instruction
// even at -O0 (a debug build), and the helpers are always inlined, which Clang does at -O0
// too. Contraction into fused multiply-adds is off so the arithmetic, and the output, does not
// depend on the target's instruction set: both dispatch paths below give the same bits.
//
// Runtime dispatch: on x86-64 every kernel is compiled twice from one body, for the baseline
// (SSE2) and with AVX2 (eight floats, two pixels, per instruction), and the public symbol is a
// GNU ifunc whose resolver the dynamic loader runs once, at load time (what
// `target_clones("avx2","default")` generates, written out so that the tests can call each
// path; `rtn_thumb_kernels`). Elsewhere (aarch64) there is one path, the baseline.
#include "CPNGKernels.h"

#include <stdlib.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF

#define RTN_INLINE static inline __attribute__((always_inline))

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && defined(__ELF__)
#define RTN_DISPATCH 1
#include <cpuid.h>
#endif

// Four floats (one pixel), eight floats (two pixels); alignment 4: rows need no more than
// malloc'd float alignment.
typedef float rtn_f4 __attribute__((vector_size(16), aligned(4)));
typedef float rtn_f8 __attribute__((vector_size(32), aligned(4)));
typedef int32_t rtn_i4 __attribute__((vector_size(16)));
typedef uint8_t rtn_b4 __attribute__((vector_size(4), aligned(1)));
typedef uint8_t rtn_b8 __attribute__((vector_size(8), aligned(1)));
// 32 bytes of a PNG row, and the same widened to 16 bits (the Paeth predictor needs 9).
typedef uint8_t rtn_b32 __attribute__((vector_size(32), aligned(1)));
typedef uint16_t rtn_u16x32 __attribute__((vector_size(64)));
typedef int16_t rtn_i16x32 __attribute__((vector_size(64)));
typedef int8_t rtn_s32 __attribute__((vector_size(32)));
typedef uint32_t rtn_u32x8 __attribute__((vector_size(32), aligned(1)));  // eight RGBA8 pixels

RTN_INLINE rtn_f4 rtn_load_rgba8(const uint8_t *p) {
    return __builtin_convertvector(*(const rtn_b4 *)p, rtn_f4);
}

RTN_INLINE rtn_f4 rtn_load_premultiplied(const uint8_t *p) {
    rtn_f4 v = rtn_load_rgba8(p);
    float f = v[3] * (1.0f / 255.0f);
    return v * (rtn_f4){f, f, f, 1.0f};
}

RTN_INLINE rtn_f4 rtn_load_linear(const uint8_t *p, const float *to_linear) {
    float a = (float)p[3];
    float f = a * (1.0f / 255.0f);
    return (rtn_f4){to_linear[p[0]] * f, to_linear[p[1]] * f, to_linear[p[2]] * f, a};
}

// The samples of the two pixels at p into *s, premultiplied when asked: the same products as
// the one-pixel loaders, lane by lane. (No eight-float value crosses a function boundary, even
// an inlined one: the baseline path has no 256-bit registers to pass it in.)
RTN_INLINE void rtn_load2_rgba8(const uint8_t *p, int premultiply, rtn_f8 *s) {
    rtn_f8 v = __builtin_convertvector(*(const rtn_b8 *)p, rtn_f8);
    if (premultiply) {
        rtn_f8 a = __builtin_shufflevector(v, v, 3, 3, 3, 3, 7, 7, 7, 7) * (1.0f / 255.0f);
        const rtn_f8 ones = {1, 1, 1, 1, 1, 1, 1, 1};
        v = v * __builtin_shufflevector(a, ones, 0, 1, 2, 11, 4, 5, 6, 15);
    }
    *s = v;
}

// One input row's samples (two at x) into a target: added to (or, fresh, stored in) acc with
// `weight`, and stored in `next` with `next_weight` when the row also starts the next output.
RTN_INLINE void rtn_put2(float *acc, float *next, size_t x, const rtn_f8 *s, float weight, float next_weight,
                         int fresh, int has_next) {
    rtn_f8 v = *s * weight;
    if (fresh) *(rtn_f8 *)(acc + 4 * x) = v;
    else *(rtn_f8 *)(acc + 4 * x) += v;
    if (has_next) *(rtn_f8 *)(next + 4 * x) = *s * next_weight;
}

RTN_INLINE void rtn_put1(float *acc, float *next, size_t x, rtn_f4 s, float weight, float next_weight, int fresh,
                         int has_next) {
    if (fresh) *(rtn_f4 *)(acc + 4 * x) = s * weight;
    else *(rtn_f4 *)(acc + 4 * x) += s * weight;
    if (has_next) *(rtn_f4 *)(next + 4 * x) = s * next_weight;
}

// Where the samples come from: RGBA8 bytes (stored, premultiplied, or premultiplied with the
// weight folded into alpha / 255), RGB8 bytes, or indices into a table of samples.
enum { RTN_FROM_RGBA8, RTN_FROM_PREMULTIPLIED, RTN_FROM_WEIGHTED, RTN_FROM_RGB8, RTN_FROM_INDEXED };

// The two pixels at p times (alpha × weight / 255, three times, then weight) into *out: the
// premultiplied samples times the weight, in two multiplies.
RTN_INLINE void rtn_weighted2(const rtn_f8 *v, float weight, rtn_f8 *out) {
    const rtn_f8 w = {weight, weight, weight, weight, weight, weight, weight, weight};
    rtn_f8 a = __builtin_shufflevector(*v, *v, 3, 3, 3, 3, 7, 7, 7, 7) * (weight * (1.0f / 255.0f));
    *out = *v * __builtin_shufflevector(a, w, 0, 1, 2, 11, 4, 5, 6, 15);
}

// The two RGBA8 pixels at bytes + 4x into a target, weighted products (see rtn_put2).
RTN_INLINE void rtn_weighted_put2(float *acc, float *next, size_t x, const uint8_t *bytes, float weight,
                                  float next_weight, int fresh, int has_next) {
    rtn_f8 v = __builtin_convertvector(*(const rtn_b8 *)(bytes + 4 * x), rtn_f8), product;
    rtn_weighted2(&v, weight, &product);
    if (fresh) *(rtn_f8 *)(acc + 4 * x) = product;
    else *(rtn_f8 *)(acc + 4 * x) += product;
    if (has_next) rtn_weighted2(&v, next_weight, (rtn_f8 *)(next + 4 * x));
}

RTN_INLINE rtn_f4 rtn_weighted1(rtn_f4 v, float weight) {
    float f = v[3] * (weight * (1.0f / 255.0f));
    return v * (rtn_f4){f, f, f, weight};
}

// Samples from..<to of a row set to 0 (nothing when to <= from).
RTN_INLINE void rtn_zero_samples(float *row, size_t from, size_t to) {
    const rtn_f8 zero = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t x = from;
    for (; x + 2 <= to; x += 2) *(rtn_f8 *)(row + 4 * x) = zero;
    if (x < to) *(rtn_f4 *)(row + 4 * x) = (rtn_f4){0, 0, 0, 0};
}

// A stored row that is zero outside lo..<hi: what of dirty_lo..<dirty_hi (where the row may
// hold nonzero samples) lies outside it is cleared.
RTN_INLINE void rtn_clear_outside(float *row, size_t dirty_lo, size_t dirty_hi, size_t lo, size_t hi) {
    if (lo >= hi) {
        rtn_zero_samples(row, dirty_lo, dirty_hi);
        return;
    }
    rtn_zero_samples(row, dirty_lo, lo < dirty_hi ? lo : dirty_hi);
    rtn_zero_samples(row, hi > dirty_lo ? hi : dirty_lo, dirty_hi);
}

// True when the eight RGBA8 pixels at p are all fully transparent (alpha 0).
RTN_INLINE int rtn_transparent8(const uint8_t *p) {
    const rtn_u32x8 none = {0, 0, 0, 0, 0, 0, 0, 0};
    rtn_u32x8 alpha = *(const rtn_u32x8 *)p & 0xff000000u;
    return __builtin_memcmp(&alpha, &none, sizeof alpha) == 0;
}

// One row into a target, with the source kind and both flags constants in every call below,
// so that each combination compiles to its own loop without branches.
RTN_INLINE void rtn_rows(rtn_thumb_target *t, const void *source, const float *table, size_t width, int from,
                         int fresh, int has_next) {
    float *acc = t->acc, *next = t->next;
    const float weight = t->weight, next_weight = t->next_weight;
    const uint8_t *bytes = (const uint8_t *)source;
    const rtn_f4 *samples = (const rtn_f4 *)table;
    size_t x = 0;
    if (from == RTN_FROM_WEIGHTED) {
        // Fully transparent pixels (most of a clip-art image's background) have samples of
        // exactly 0, which add nothing: only a fresh row is written there. First the row's
        // transparent ends, eight pixels at a time and then one, from each side; then the span
        // between them, where eight transparent pixels in a row are skipped as well.
        const rtn_f8 zero = {0, 0, 0, 0, 0, 0, 0, 0};
        size_t lo = 0, hi = width;
        while (lo + 8 <= width && rtn_transparent8(bytes + 4 * lo)) lo += 8;
        while (lo < width && bytes[4 * lo + 3] == 0) lo++;
        while (hi >= lo + 8 && rtn_transparent8(bytes + 4 * (hi - 8))) hi -= 8;
        while (hi > lo && bytes[4 * (hi - 1) + 3] == 0) hi--;
        if (lo == hi) lo = hi = 0;
        t->row_lo = lo;
        t->row_hi = hi;
        if (fresh) rtn_clear_outside(acc, t->known ? t->acc_lo : 0, t->known ? t->acc_hi : width, lo, hi);
        if (has_next) rtn_clear_outside(next, t->known ? t->next_lo : 0, t->known ? t->next_hi : width, lo, hi);
        x = lo;
        for (size_t end = x + 8; end <= hi; end += 8) {
            if (rtn_transparent8(bytes + 4 * x)) {
                for (; x < end; x += 2) {
                    if (fresh) *(rtn_f8 *)(acc + 4 * x) = zero;
                    if (has_next) *(rtn_f8 *)(next + 4 * x) = zero;
                }
                continue;
            }
            for (; x < end; x += 2) rtn_weighted_put2(acc, next, x, bytes, weight, next_weight, fresh, has_next);
        }
        for (; x + 2 <= hi; x += 2) rtn_weighted_put2(acc, next, x, bytes, weight, next_weight, fresh, has_next);
        for (; x < hi; x++) {
            rtn_f4 v = rtn_load_rgba8(bytes + 4 * x);
            if (fresh) *(rtn_f4 *)(acc + 4 * x) = rtn_weighted1(v, weight);
            else *(rtn_f4 *)(acc + 4 * x) += rtn_weighted1(v, weight);
            if (has_next) *(rtn_f4 *)(next + 4 * x) = rtn_weighted1(v, next_weight);
        }
        return;
    }
    t->row_lo = 0;  // every sample is written (or added), whatever it is
    t->row_hi = width;
    if (from == RTN_FROM_INDEXED) {
        // Eight pixels of one index (most of a flat image's row) take that index's products,
        // made once per run of them: the same products, so the same sums, without a table
        // load, a shuffle and a multiply per pixel pair.
        int last = -1;
        rtn_f8 vw = {0, 0, 0, 0, 0, 0, 0, 0}, vn = vw;
        for (; x + 8 <= width; x += 8) {
            uint64_t word;
            memcpy(&word, bytes + x, 8);
            if (word != (uint64_t)bytes[x] * 0x0101010101010101ull) {
                for (size_t k = x; k < x + 8; k += 2) {
                    rtn_f8 s = __builtin_shufflevector(samples[bytes[k]], samples[bytes[k + 1]], 0, 1, 2, 3, 4, 5, 6, 7);
                    rtn_put2(acc, next, k, &s, weight, next_weight, fresh, has_next);
                }
                continue;
            }
            if (bytes[x] != last) {
                last = bytes[x];
                rtn_f8 s = __builtin_shufflevector(samples[last], samples[last], 0, 1, 2, 3, 4, 5, 6, 7);
                vw = s * weight;
                vn = s * next_weight;
            }
            for (size_t k = x; k < x + 8; k += 2) {
                if (fresh) *(rtn_f8 *)(acc + 4 * k) = vw;
                else *(rtn_f8 *)(acc + 4 * k) += vw;
                if (has_next) *(rtn_f8 *)(next + 4 * k) = vn;
            }
        }
    }
    // RGB: two pixels from one eight-byte load, which must stay inside the row (x + 3 <= width).
    for (; from == RTN_FROM_RGB8 && x + 3 <= width; x += 2) {
        rtn_b8 b = *(const rtn_b8 *)(bytes + 3 * x);
        rtn_f8 v = __builtin_convertvector(__builtin_shufflevector(b, b, 0, 1, 2, 2, 3, 4, 5, 5), rtn_f8), s;
        const rtn_f8 opaque = {255, 255, 255, 255, 255, 255, 255, 255};
        s = __builtin_shufflevector(v, opaque, 0, 1, 2, 11, 4, 5, 6, 15);
        rtn_put2(acc, next, x, &s, weight, next_weight, fresh, has_next);
    }
    for (; from != RTN_FROM_RGB8 && x + 2 <= width; x += 2) {
        rtn_f8 s;
        switch (from) {
        case RTN_FROM_RGBA8: rtn_load2_rgba8(bytes + 4 * x, 0, &s); break;
        case RTN_FROM_PREMULTIPLIED: rtn_load2_rgba8(bytes + 4 * x, 1, &s); break;
        default:  // RTN_FROM_INDEXED
            s = __builtin_shufflevector(samples[bytes[x]], samples[bytes[x + 1]], 0, 1, 2, 3, 4, 5, 6, 7);
            break;
        }
        rtn_put2(acc, next, x, &s, weight, next_weight, fresh, has_next);
    }
    for (; x < width; x++) {
        rtn_f4 s;
        switch (from) {
        case RTN_FROM_RGBA8: s = rtn_load_rgba8(bytes + 4 * x); break;
        case RTN_FROM_PREMULTIPLIED: s = rtn_load_premultiplied(bytes + 4 * x); break;
        case RTN_FROM_RGB8: s = (rtn_f4){bytes[3 * x], bytes[3 * x + 1], bytes[3 * x + 2], 255}; break;
        default: s = samples[bytes[x]]; break;  // RTN_FROM_INDEXED
        }
        rtn_put1(acc, next, x, s, weight, next_weight, fresh, has_next);
    }
}

// rtn_rows with `from` and the target's flags turned into constants.
#define RTN_ROWS_FOR(from)                                                                         \
    RTN_INLINE void rtn_rows_##from(rtn_thumb_target *t, const void *source, const float *table, \
                                    size_t width) {                                                \
        if (t->next == NULL) {                                                                     \
            if (t->fresh) rtn_rows(t, source, table, width, from, 1, 0);                           \
            else rtn_rows(t, source, table, width, from, 0, 0);                                    \
        } else {                                                                                   \
            if (t->fresh) rtn_rows(t, source, table, width, from, 1, 1);                           \
            else rtn_rows(t, source, table, width, from, 0, 1);                                    \
        }                                                                                          \
    }
RTN_ROWS_FOR(RTN_FROM_RGBA8)
RTN_ROWS_FOR(RTN_FROM_PREMULTIPLIED)
RTN_ROWS_FOR(RTN_FROM_WEIGHTED)
RTN_ROWS_FOR(RTN_FROM_RGB8)
RTN_ROWS_FOR(RTN_FROM_INDEXED)

// --- bodies, compiled once per dispatch path ----------------------------------------------

RTN_INLINE void rtn_accumulate_rgba8_body(rtn_thumb_target *t, const uint8_t *row, size_t width,
                                          rtn_thumb_pixels pixels, const float *to_linear) {
    switch (pixels) {
    case RTN_THUMB_OPAQUE: rtn_rows_RTN_FROM_RGBA8(t, row, NULL, width); break;
    case RTN_THUMB_PREMULTIPLY: rtn_rows_RTN_FROM_PREMULTIPLIED(t, row, NULL, width); break;
    case RTN_THUMB_PREMULTIPLY_WEIGHTED: rtn_rows_RTN_FROM_WEIGHTED(t, row, NULL, width); break;
    case RTN_THUMB_RGB: rtn_rows_RTN_FROM_RGB8(t, row, NULL, width); break;
    case RTN_THUMB_LINEAR:
        t->row_lo = 0;
        t->row_hi = width;
        for (size_t x = 0; x < width; x++) {
            rtn_put1(t->acc, t->next, x, rtn_load_linear(row + 4 * x, to_linear), t->weight, t->next_weight, t->fresh,
                     t->next != NULL);
        }
        break;
    }
}

RTN_INLINE void rtn_accumulate_indexed_body(rtn_thumb_target *t, const uint8_t *indices, size_t width,
                                            const float *table) {
    rtn_rows_RTN_FROM_INDEXED(t, indices, table, width);
}

// out = rows[0] × weights[0] + rows[1] × weights[1] + ..., added in that order (the bits of
// storing the first row's products and adding each next row's), `count` a constant in each
// call below, so the weights stay in registers and the loop over rows unrolls.
RTN_INLINE void rtn_gather_rows(const float *const *rows, const float *weights, size_t width, float *out,
                                int count) {
    rtn_f8 w[16];
    const float *r[16];
    for (int k = 0; k < count; k++) {
        w[k] = (rtn_f8){weights[k], weights[k], weights[k], weights[k], weights[k], weights[k], weights[k], weights[k]};
        r[k] = rows[k];
    }
    size_t x = 0;
    for (; x + 2 <= width; x += 2) {
        rtn_f8 sum = *(const rtn_f8 *)(r[0] + 4 * x) * w[0];
        for (int k = 1; k < count; k++) sum += *(const rtn_f8 *)(r[k] + 4 * x) * w[k];
        *(rtn_f8 *)(out + 4 * x) = sum;
    }
    for (; x < width; x++) {
        rtn_f4 sum = *(const rtn_f4 *)(r[0] + 4 * x) * weights[0];
        for (int k = 1; k < count; k++) sum += *(const rtn_f4 *)(r[k] + 4 * x) * weights[k];
        *(rtn_f4 *)(out + 4 * x) = sum;
    }
}

RTN_INLINE void rtn_gather_body(const float *const *rows, const float *weights, size_t count, size_t width,
                                float *out) {
    switch (count) {
#define RTN_GATHER(n) case n: rtn_gather_rows(rows, weights, width, out, n); return;
    RTN_GATHER(1) RTN_GATHER(2) RTN_GATHER(3) RTN_GATHER(4) RTN_GATHER(5) RTN_GATHER(6) RTN_GATHER(7)
    RTN_GATHER(8) RTN_GATHER(9) RTN_GATHER(10) RTN_GATHER(11) RTN_GATHER(12) RTN_GATHER(13) RTN_GATHER(14)
    RTN_GATHER(15) RTN_GATHER(16)
#undef RTN_GATHER
    default: break;
    }
    // More rows than registers: the running sum in `out`, one row at a time, in the same order.
    if (count == 0) return;
    size_t x = 0;
    for (; x + 2 <= width; x += 2) *(rtn_f8 *)(out + 4 * x) = *(const rtn_f8 *)(rows[0] + 4 * x) * weights[0];
    for (; x < width; x++) *(rtn_f4 *)(out + 4 * x) = *(const rtn_f4 *)(rows[0] + 4 * x) * weights[0];
    for (size_t k = 1; k < count; k++) {
        for (x = 0; x + 2 <= width; x += 2) *(rtn_f8 *)(out + 4 * x) += *(const rtn_f8 *)(rows[k] + 4 * x) * weights[k];
        for (; x < width; x++) *(rtn_f4 *)(out + 4 * x) += *(const rtn_f4 *)(rows[k] + 4 * x) * weights[k];
    }
}

// Outputs from..<to of a table whose weights are the same for each (`half` pairs, 1...8, in
// registers): one eight-float load and multiply per two taps, no table reads.
RTN_INLINE void rtn_filter_uniform(const rtn_f4 *src, const int32_t *first, size_t from, size_t to,
                                   const float *pairs, int half, rtn_f4 *dst) {
    rtn_f8 w[8];
    for (int m = 0; m < 8; m++) w[m] = m < half ? *(const rtn_f8 *)(pairs + 8 * m) : (rtn_f8){0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = from; i < to; i++) {
        const rtn_f4 *p = src + first[i];
        rtn_f8 even = *(const rtn_f8 *)p * w[0], odd = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int m = 1; m < half; m++) {
            if (m & 1) odd += *(const rtn_f8 *)(p + 2 * m) * w[m];
            else even += *(const rtn_f8 *)(p + 2 * m) * w[m];
        }
        even += odd;
        dst[i] = __builtin_shufflevector(even, even, 0, 1, 2, 3) + __builtin_shufflevector(even, even, 4, 5, 6, 7);
    }
}

// Outputs lo..<hi of a table whose outputs all have 2 * half taps (half a constant in each
// call): weights four at a time, two taps per multiply, no tail.
RTN_INLINE void rtn_filter_fixed(const rtn_f4 *src, rtn_thumb_taps taps, size_t lo, size_t hi, int half,
                                 rtn_f4 *dst) {
    for (size_t i = lo; i < hi; i++) {
        const rtn_f4 *p = src + taps.first[i];
        const float *w = taps.weights + i * taps.stride;
        rtn_f8 even = {0, 0, 0, 0, 0, 0, 0, 0}, odd = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int m = 0; m < half; m += 2) {
            rtn_f4 four = *(const rtn_f4 *)(w + 2 * m);
            even += *(const rtn_f8 *)(p + 2 * m) * __builtin_shufflevector(four, four, 0, 0, 0, 0, 1, 1, 1, 1);
            if (m + 1 < half) {
                odd += *(const rtn_f8 *)(p + 2 * m + 2) * __builtin_shufflevector(four, four, 2, 2, 2, 2, 3, 3, 3, 3);
            }
        }
        even += odd;
        dst[i] = __builtin_shufflevector(even, even, 0, 1, 2, 3) + __builtin_shufflevector(even, even, 4, 5, 6, 7);
    }
}

// Outputs lo..<hi of any table.
RTN_INLINE void rtn_filter_any(const rtn_f4 *src, rtn_thumb_taps taps, size_t lo, size_t hi, rtn_f4 *dst) {
    for (size_t i = lo; i < hi; i++) {
        const rtn_f4 *p = src + taps.first[i];
        const float *w = taps.weights + i * taps.stride;
        int32_t n = taps.count[i], k = 0;
        // Two taps per step in one eight-float vector: even taps in the low half, odd in the high.
        rtn_f8 pair = {0, 0, 0, 0, 0, 0, 0, 0};
        for (; k + 2 <= n; k += 2) {
            rtn_f8 weights = {w[k], w[k], w[k], w[k], w[k + 1], w[k + 1], w[k + 1], w[k + 1]};
            pair += *(const rtn_f8 *)(p + k) * weights;
        }
        rtn_f4 sum = __builtin_shufflevector(pair, pair, 0, 1, 2, 3) + __builtin_shufflevector(pair, pair, 4, 5, 6, 7);
        if (k < n) sum += p[k] * w[k];
        dst[i] = sum;
    }
}

// The constant-count loops, one per count, chosen once per call (so each is unrolled).
#define RTN_BY_HALF(half, call)                                                                    \
    switch (half) {                                                                                \
    case 1: call(1); break;                                                                        \
    case 2: call(2); break;                                                                        \
    case 3: call(3); break;                                                                        \
    case 4: call(4); break;                                                                        \
    case 5: call(5); break;                                                                        \
    case 6: call(6); break;                                                                        \
    case 7: call(7); break;                                                                        \
    default: call(8); break;                                                                       \
    }

RTN_INLINE void rtn_filter_range(const rtn_f4 *src, rtn_thumb_taps taps, size_t lo, size_t hi, rtn_f4 *dst) {
    if (lo >= hi) return;
    int fixed = taps.fixed_count;
    if (fixed >= 2 && fixed <= 16 && fixed % 2 == 0) {
#define RTN_FIXED(half) rtn_filter_fixed(src, taps, lo, hi, half, dst)
        RTN_BY_HALF(fixed / 2, RTN_FIXED)
#undef RTN_FIXED
    } else {
        rtn_filter_any(src, taps, lo, hi, dst);
    }
}

// Outputs lo..<hi: the uniform ones (clipped to the range) with their weights in registers.
RTN_INLINE void rtn_filter_row_body(const float *row, rtn_thumb_taps taps, size_t lo, size_t hi, float *out) {
    const rtn_f4 *src = (const rtn_f4 *)row;
    rtn_f4 *dst = (rtn_f4 *)out;
    if (hi > taps.outputs) hi = taps.outputs;
    if (lo >= hi) return;
    int half = (taps.uniform_count + 1) / 2;
    size_t from = taps.uniform_from, to = taps.uniform_to;
    if (to <= from || half < 1 || half > 8 || to > taps.outputs) from = to = hi;
    if (from < lo) from = lo;
    if (to > hi) to = hi;
    if (to <= from) from = to = hi;
    rtn_filter_range(src, taps, lo, from, dst);
    if (from < to) {
#define RTN_UNIFORM(h) rtn_filter_uniform(src, taps.first, from, to, taps.uniform_pairs, h, dst)
        RTN_BY_HALF(half, RTN_UNIFORM)
#undef RTN_UNIFORM
    }
    rtn_filter_range(src, taps, to, hi, dst);
}

// --- the PNG encoder's row filter ---------------------------------------------------------
//
// Predictors as PNG defines them: a the byte one pixel left, b the byte above, c the byte above
// and left (0 outside the image). Residuals wrap modulo 256; libpng's heuristic scores a row by
// the sum of its residuals' magnitudes read as signed bytes (v < 128 ? v : 256 - v).

RTN_INLINE unsigned rtn_png_magnitude(unsigned v) { return v < 128 ? v : 256 - v; }

RTN_INLINE unsigned rtn_png_paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (unsigned)((pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c));
}

// The residual of filter `type` for byte x with neighbours a, b, c.
RTN_INLINE uint8_t rtn_png_residual(int type, unsigned x, unsigned a, unsigned b, unsigned c) {
    switch (type) {
    case 1: return (uint8_t)(x - a);
    case 2: return (uint8_t)(x - b);
    case 3: return (uint8_t)(x - ((a + b) >> 1));
    case 4: return (uint8_t)(x - rtn_png_paeth((int)a, (int)b, (int)c));
    default: return (uint8_t)x;
    }
}

// The residuals of filter `type` for the 32 bytes at row + i (i >= bpp), into *out. (Vectors
// of 32 bytes are kept inside functions: the baseline path has no register to pass them in.)
RTN_INLINE void rtn_png_residual32(int type, const uint8_t *row, const uint8_t *prev, size_t i, size_t bpp,
                                   rtn_b32 *out) {
    rtn_b32 x = *(const rtn_b32 *)(row + i), a = *(const rtn_b32 *)(row + i - bpp);
    rtn_b32 b = *(const rtn_b32 *)(prev + i);
    switch (type) {
    case 1: *out = x - a; break;
    case 2: *out = x - b; break;
    case 3: *out = x - ((a & b) + ((a ^ b) >> 1)); break;  // floor((a + b) / 2) without widening
    case 4: {
        rtn_b32 c = *(const rtn_b32 *)(prev + i - bpp);
        rtn_i16x32 a16 = __builtin_convertvector(a, rtn_i16x32), b16 = __builtin_convertvector(b, rtn_i16x32);
        rtn_i16x32 c16 = __builtin_convertvector(c, rtn_i16x32);
        rtn_i16x32 p = b16 - c16, q = a16 - c16;
        rtn_i16x32 r = p + q, sp = p >> 15, sq = q >> 15, sr = r >> 15;  // |v| = (v ^ s) - s, s = v >> 15
        rtn_i16x32 pa = (p ^ sp) - sp, pb = (q ^ sq) - sq, pc = (r ^ sr) - sr;
        rtn_i16x32 take_a = (pa <= pb) & (pa <= pc), take_b = pb <= pc;
        rtn_i16x32 predictor = (take_a & a16) | (~take_a & ((take_b & b16) | (~take_b & c16)));
        *out = x - __builtin_convertvector(predictor, rtn_b32);
        break;
    }
    default: *out = x; break;
    }
}

// Each filter's score over the row: the scalar head (no left neighbour), 32 bytes a step in
// 16-bit lanes (at most 128 a step, emptied into `sums` every 256 steps), the scalar tail.
RTN_INLINE void rtn_png_scores_body(const uint8_t *row, const uint8_t *prev, size_t length, size_t bpp,
                                    uint64_t sums[5]) {
    size_t i = 0;
    for (; i < bpp && i < length; i++) {
        for (int t = 0; t < 5; t++) sums[t] += rtn_png_magnitude(rtn_png_residual(t, row[i], 0, prev[i], 0));
    }
    while (i + 32 <= length) {
        rtn_u16x32 lanes[5] = {{0}, {0}, {0}, {0}, {0}};
        for (int steps = 0; steps < 256 && i + 32 <= length; steps++, i += 32) {
            for (int t = 0; t < 5; t++) {
                rtn_b32 r;
                rtn_png_residual32(t, row, prev, i, bpp, &r);
                rtn_s32 v = (rtn_s32)r, sign = v >> 7;  // the magnitude of v as a signed byte, 128 for -128
                lanes[t] += __builtin_convertvector((rtn_b32)((v ^ sign) - sign), rtn_u16x32);
            }
        }
        for (int t = 0; t < 5; t++) {
            for (int lane = 0; lane < 32; lane++) sums[t] += lanes[t][lane];
        }
    }
    for (; i < length; i++) {
        for (int t = 0; t < 5; t++) {
            sums[t] += rtn_png_magnitude(rtn_png_residual(t, row[i], row[i - bpp], prev[i], prev[i - bpp]));
        }
    }
}

RTN_INLINE void rtn_png_apply_body(int type, const uint8_t *row, const uint8_t *prev, size_t length, size_t bpp,
                                   uint8_t *out) {
    if (type == 0) {
        memcpy(out, row, length);
        return;
    }
    size_t i = 0;
    for (; i < bpp && i < length; i++) out[i] = rtn_png_residual(type, row[i], 0, prev[i], 0);
    for (; i + 32 <= length; i += 32) rtn_png_residual32(type, row, prev, i, bpp, (rtn_b32 *)(out + i));
    for (; i < length; i++) out[i] = rtn_png_residual(type, row[i], row[i - bpp], prev[i], prev[i - bpp]);
}

RTN_INLINE int rtn_png_filter_row_body(const uint8_t *row, const uint8_t *prev, size_t length, size_t bpp,
                                       unsigned allowed, uint8_t *out) {
    allowed &= 0x1f;
    int type = 0;
    if (allowed != 0 && (allowed & (allowed - 1)) == 0) {
        while (!(allowed & (1u << type))) type++;
    } else if (allowed != 0) {
        uint64_t sums[5] = {0, 0, 0, 0, 0};
        rtn_png_scores_body(row, prev, length, bpp, sums);
        uint64_t best = UINT64_MAX;
        for (int t = 0; t < 5; t++) {
            if ((allowed & (1u << t)) && sums[t] < best) {
                best = sums[t];
                type = t;
            }
        }
    }
    out[0] = (uint8_t)type;
    rtn_png_apply_body(type, row, prev, length, bpp, out + 1);
    return type;
}

// --- the decoder's row unfilter (the fast path, Sources/CPNG/fastpath.c) ----------------------
//
// The inverse of the residuals above: each byte plus its predictor from bytes already
// unfiltered, so Sub, Average and Paeth go a pixel at a time (one vector of the pixel's bytes),
// and Up, whose predictor is the row above, 32 bytes at a time. Every pixel's bytes are loaded
// before any is stored, and stores go no further right than the loads, so `out` may lie before
// `in` in the same buffer (the fast path's in-place unfilter).

typedef int16_t rtn_i16x8 __attribute__((vector_size(16)));
typedef uint8_t rtn_u8x16 __attribute__((vector_size(16)));

// A pixel's bytes are put together in a register (never through memory: a 4-byte load of
// bytes just stored one or two at a time would wait for the stores to drain), widened to
// 16-bit lanes: enough for the Paeth predictor's a + b - 2c, and each step one instruction
// (absolute value and minimum included), which shortens the chain from one pixel to the next.
RTN_INLINE rtn_i16x8 rtn_png_load_pixel(const uint8_t *p, size_t bpp) {
    uint64_t bits;
    if (bpp == 4) {
        uint32_t word;
        memcpy(&word, p, 4);
        bits = word;
    } else {
        uint16_t low;
        memcpy(&low, p, 2);
        bits = (uint64_t)low | (uint64_t)p[2] << 16;
    }
    rtn_b8 bytes;
    memcpy(&bytes, &bits, 8);
    return __builtin_convertvector(bytes, rtn_i16x8);
}

RTN_INLINE void rtn_png_store_pixel(uint8_t *p, rtn_i16x8 v, size_t bpp) {
    // The low byte of each lane (one shuffle; a conversion would extract lane by lane).
    rtn_u8x16 lanes = (rtn_u8x16)v;
    rtn_b8 bytes = __builtin_shufflevector(lanes, lanes, 0, 2, 4, 6, 8, 10, 12, 14);
    uint64_t bits;
    memcpy(&bits, &bytes, 8);
    if (bpp == 4) {
        uint32_t word = (uint32_t)bits;
        memcpy(p, &word, 4);
    } else {
        uint16_t low = (uint16_t)bits;
        memcpy(p, &low, 2);
        p[2] = (uint8_t)(bits >> 16);
    }
}

// The predictor of filter `type` (1 sub, 3 average, 4 paeth) from the left, upper and
// upper-left pixels. Paeth: the nearest of a, b, c to a + b - c, ties to a then b (the
// smallest distance found once, then compared for equality: the same choice as the
// specification's pa <= pb && pa <= pc, then pb <= pc).
RTN_INLINE rtn_i16x8 rtn_png_predict(int type, rtn_i16x8 a, rtn_i16x8 b, rtn_i16x8 c) {
    if (type == 1) return a;
    if (type == 3) return (a + b) >> 1;
    rtn_i16x8 p = b - c, q = a - c;
    rtn_i16x8 pa = __builtin_elementwise_abs(p), pb = __builtin_elementwise_abs(q), pc = __builtin_elementwise_abs(p + q);
    rtn_i16x8 nearest = __builtin_elementwise_min(pa, __builtin_elementwise_min(pb, pc));
    rtn_i16x8 take_a = pa == nearest, take_b = pb == nearest;
    return (take_a & a) | (~take_a & ((take_b & b) | (~take_b & c)));
}

// Sub, Average or Paeth on pixels of `bpp` (3 or 4) bytes: the left neighbour stays in a register.
RTN_INLINE void rtn_png_unfilter_pixels(int type, const uint8_t *in, const uint8_t *prev, size_t length,
                                        size_t bpp, uint8_t *out) {
    rtn_i16x8 a = {0}, c = {0};
    for (size_t i = 0; i + bpp <= length; i += bpp) {
        rtn_i16x8 x = rtn_png_load_pixel(in + i, bpp), b = rtn_png_load_pixel(prev + i, bpp);
        a = (x + rtn_png_predict(type, a, b, c)) & 0xff;
        c = b;
        rtn_png_store_pixel(out + i, a, bpp);
    }
}

// Two rows at once, each Sub, Average or Paeth, the second's row above being the first: pixel
// x of both per step, the first row's new pixel handed to the second in a register. Each row's
// pixels depend on the pixel before, a chain of a dozen dependent steps; two chains keep the
// CPU busy where one leaves it waiting (1.5-1.7x on Paeth rows).
RTN_INLINE void rtn_png_unfilter_pixel_pairs(int type0, const uint8_t *in0, int type1, const uint8_t *in1,
                                             const uint8_t *prev, size_t length, size_t bpp, uint8_t *out0,
                                             uint8_t *out1) {
    rtn_i16x8 a0 = {0}, c0 = {0}, a1 = {0};
    for (size_t i = 0; i + bpp <= length; i += bpp) {
        rtn_i16x8 x0 = rtn_png_load_pixel(in0 + i, bpp), x1 = rtn_png_load_pixel(in1 + i, bpp);
        rtn_i16x8 b0 = rtn_png_load_pixel(prev + i, bpp);
        rtn_i16x8 above = (x0 + rtn_png_predict(type0, a0, b0, c0)) & 0xff;
        c0 = b0;
        a1 = (x1 + rtn_png_predict(type1, a1, above, a0)) & 0xff;
        a0 = above;
        rtn_png_store_pixel(out0 + i, a0, bpp);
        rtn_png_store_pixel(out1 + i, a1, bpp);
    }
}

#ifdef RTN_DISPATCH
typedef int16_t rtn_i16x16 __attribute__((vector_size(32)));

// Two rows of Paeth at 3 or 4 bytes a pixel, staggered in one 256-bit register: the low half
// computes row 0's pixel k, the high half row 1's pixel k - 1, whose above (row 0's pixel k - 1)
// and left (row 1's pixel k - 2) the step before made, so one vector Paeth serves both rows
// where rtn_png_unfilter_pixel_pairs needs two (36 -> 28.5 ms on a 12 MP RGB photo's rows, all
// Paeth; Average rows gain nothing, so they stay paired). The same predictor lane by lane, so
// the same bytes. Loads of a pixel come before its store, and a row's store never passes its
// own load, as the paired loop keeps them. AVX2 only: the vectors live inside this function.
__attribute__((target("avx2"))) static void rtn_png_unfilter_paeth_staggered(const uint8_t *in0, const uint8_t *in1,
                                                                             const uint8_t *prev, size_t length, size_t bpp,
                                                                             uint8_t *out0, uint8_t *out1) {
    size_t n = length / bpp;
    if (n == 0) return;
    const rtn_i16x8 zero = {0};
    // Row 0's pixel 0 alone (no left, no above-left).
    rtn_i16x8 b0 = rtn_png_load_pixel(prev, bpp);
    rtn_i16x8 first = (rtn_png_load_pixel(in0, bpp) + rtn_png_predict(4, zero, b0, zero)) & 0xff;
    rtn_png_store_pixel(out0, first, bpp);
    // Left (A), above-left (C) of the next step's two pixels; row 0's pixel before it.
    rtn_i16x16 a = __builtin_shufflevector(first, zero, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    rtn_i16x16 c = __builtin_shufflevector(b0, zero, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    rtn_i16x8 above = first;
    for (size_t k = 1; k < n; k++) {
        size_t i = k * bpp;
        rtn_i16x16 b = __builtin_shufflevector(rtn_png_load_pixel(prev + i, bpp), above, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                               13, 14, 15);
        rtn_i16x16 x = __builtin_shufflevector(rtn_png_load_pixel(in0 + i, bpp), rtn_png_load_pixel(in1 + i - bpp, bpp), 0, 1, 2,
                                               3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        rtn_i16x16 p = b - c, q = a - c;
        rtn_i16x16 pa = __builtin_elementwise_abs(p), pb = __builtin_elementwise_abs(q), pc = __builtin_elementwise_abs(p + q);
        rtn_i16x16 nearest = __builtin_elementwise_min(pa, __builtin_elementwise_min(pb, pc));
        rtn_i16x16 take_a = pa == nearest, take_b = pb == nearest;
        rtn_i16x16 made = (x + ((take_a & a) | (~take_a & ((take_b & b) | (~take_b & c))))) & 0xff;
        above = __builtin_shufflevector(made, made, 0, 1, 2, 3, 4, 5, 6, 7);
        rtn_png_store_pixel(out0 + i, above, bpp);
        rtn_png_store_pixel(out1 + i - bpp, __builtin_shufflevector(made, made, 8, 9, 10, 11, 12, 13, 14, 15), bpp);
        c = b;
        a = made;
    }
    // Row 1's last pixel alone.
    size_t i = (n - 1) * bpp;
    rtn_i16x8 left = __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15);
    rtn_i16x8 corner = __builtin_shufflevector(c, c, 8, 9, 10, 11, 12, 13, 14, 15);
    rtn_i16x8 last = (rtn_png_load_pixel(in1 + i, bpp) + rtn_png_predict(4, left, above, corner)) & 0xff;
    rtn_png_store_pixel(out1 + i, last, bpp);
}
#endif

RTN_INLINE int rtn_png_unfilter_row_body(int type, const uint8_t *in, const uint8_t *prev, size_t length,
                                         size_t bpp, uint8_t *out) {
    if (type < 0 || type > 4) return -1;
    if (type == 0) {
        if (out != in) memmove(out, in, length);
        return 0;
    }
    if (type == 2) {
        size_t i = 0;
        for (; i + 32 <= length; i += 32) {
            rtn_b32 v = *(const rtn_b32 *)(in + i) + *(const rtn_b32 *)(prev + i);
            *(rtn_b32 *)(out + i) = v;
        }
        for (; i < length; i++) out[i] = (uint8_t)(in[i] + prev[i]);
        return 0;
    }
    if (bpp == 3 || bpp == 4) {
        if (bpp == 4) rtn_png_unfilter_pixels(type, in, prev, length, 4, out);
        else rtn_png_unfilter_pixels(type, in, prev, length, 3, out);
        return 0;
    }
    // One or two bytes a pixel: a byte at a time.
    for (size_t i = 0; i < length; i++) {
        unsigned a = i >= bpp ? out[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
        out[i] = (uint8_t)(in[i] + (type == 1 ? a : type == 3 ? (a + b) >> 1 : rtn_png_paeth((int)a, (int)b, (int)c)));
    }
    return 0;
}

RTN_INLINE int rtn_png_pairs(int type) { return type == 1 || type == 3 || type == 4; }

RTN_INLINE int rtn_png_unfilter_rows_body(int type0, const uint8_t *in0, int type1, const uint8_t *in1,
                                          const uint8_t *prev, size_t length, size_t bpp, uint8_t *out0,
                                          uint8_t *out1, int wide) {
    if (type0 < 0 || type0 > 4 || type1 < 0 || type1 > 4) return -1;
#ifdef RTN_DISPATCH
    if (wide && type0 == 4 && type1 == 4 && (bpp == 3 || bpp == 4)) {
        rtn_png_unfilter_paeth_staggered(in0, in1, prev, length, bpp, out0, out1);
        return 0;
    }
#else
    (void)wide;
#endif
    if ((bpp == 3 || bpp == 4) && rtn_png_pairs(type0) && rtn_png_pairs(type1)) {
        if (bpp == 4) rtn_png_unfilter_pixel_pairs(type0, in0, type1, in1, prev, length, 4, out0, out1);
        else rtn_png_unfilter_pixel_pairs(type0, in0, type1, in1, prev, length, 3, out0, out1);
        return 0;
    }
    rtn_png_unfilter_row_body(type0, in0, prev, length, bpp, out0);
    return rtn_png_unfilter_row_body(type1, in1, out0, length, bpp, out1);
}

// Sixteen indices a step: a run of one index (flat images: most of every row) is one table load
// and a broadcast store; otherwise sixteen table loads assembled into two 32-byte stores, where
// a store per pixel was the bottleneck. The indices are read as two 64-bit words, so nothing is
// read past `row + width`.
RTN_INLINE void rtn_png_expand_indexed_body(const uint8_t *row, size_t width, const uint32_t *table, uint8_t *out) {
    size_t x = 0;
    for (; x + 16 <= width; x += 16) {
        uint64_t lo, hi;
        memcpy(&lo, row + x, 8);
        memcpy(&hi, row + x + 8, 8);
        uint64_t same = (uint64_t)row[x] * 0x0101010101010101ull;
        if (lo == same && hi == same) {
            uint32_t p = table[row[x]];
            rtn_u32x8 v = {p, p, p, p, p, p, p, p};
            memcpy(out + 4 * x, &v, 32);
            memcpy(out + 4 * x + 32, &v, 32);
            continue;
        }
        rtn_u32x8 a = {table[lo & 255], table[lo >> 8 & 255], table[lo >> 16 & 255], table[lo >> 24 & 255],
                       table[lo >> 32 & 255], table[lo >> 40 & 255], table[lo >> 48 & 255], table[lo >> 56]};
        rtn_u32x8 b = {table[hi & 255], table[hi >> 8 & 255], table[hi >> 16 & 255], table[hi >> 24 & 255],
                       table[hi >> 32 & 255], table[hi >> 40 & 255], table[hi >> 48 & 255], table[hi >> 56]};
        memcpy(out + 4 * x, &a, 32);
        memcpy(out + 4 * x + 32, &b, 32);
    }
    for (; x < width; x++) memcpy(out + 4 * x, &table[row[x]], 4);
}

// --- one copy of every kernel per path ----------------------------------------------------

#define RTN_KERNELS(suffix, attributes, wide)                                                        \
    attributes static void rtn_thumb_accumulate_rgba8_##suffix(rtn_thumb_target *target,         \
                                                               const uint8_t *row, size_t width,       \
                                                               rtn_thumb_pixels pixels,                \
                                                               const float *to_linear) {               \
        rtn_accumulate_rgba8_body(target, row, width, pixels, to_linear);                              \
    }                                                                                                  \
    attributes static void rtn_thumb_accumulate_indexed_##suffix(rtn_thumb_target *target,       \
                                                                 const uint8_t *indices, size_t width, \
                                                                 const float *table) {                 \
        rtn_accumulate_indexed_body(target, indices, width, table);                                    \
    }                                                                                                  \
    attributes static void rtn_thumb_filter_row_##suffix(const float *row, rtn_thumb_taps taps,        \
                                                         size_t from, size_t to, float *out) {         \
        rtn_filter_row_body(row, taps, from, to, out);                                                 \
    }                                                                                                  \
    attributes static void rtn_thumb_gather_##suffix(const float *const *rows, const float *weights,    \
                                                     size_t count, size_t width, float *out) {         \
        rtn_gather_body(rows, weights, count, width, out);                                             \
    }                                                                                                  \
    attributes static int rtn_png_filter_row_##suffix(const uint8_t *row, const uint8_t *prev,         \
                                                      size_t length, size_t bpp, unsigned allowed,     \
                                                      uint8_t *out) {                                  \
        return rtn_png_filter_row_body(row, prev, length, bpp, allowed, out);                          \
    }                                                                                                  \
    attributes static int rtn_png_unfilter_row_##suffix(int type, const uint8_t *in, const uint8_t *prev, \
                                                        size_t length, size_t bpp, uint8_t *out) {     \
        return rtn_png_unfilter_row_body(type, in, prev, length, bpp, out);                            \
    }                                                                                                  \
    attributes static int rtn_png_unfilter_rows_##suffix(int type0, const uint8_t *in0, int type1,     \
                                                         const uint8_t *in1, const uint8_t *prev,      \
                                                         size_t length, size_t bpp, uint8_t *out0,     \
                                                         uint8_t *out1) {                              \
        return rtn_png_unfilter_rows_body(type0, in0, type1, in1, prev, length, bpp, out0, out1, wide);\
    }                                                                                                  \
    attributes static void rtn_png_expand_indexed_##suffix(const uint8_t *row, size_t width,          \
                                                           const uint32_t *table, uint8_t *out) {      \
        rtn_png_expand_indexed_body(row, width, table, out);                                           \
    }                                                                                                  \
    static const rtn_thumb_kernel_set rtn_kernels_##suffix = {                                         \
        rtn_thumb_accumulate_rgba8_##suffix, rtn_thumb_accumulate_indexed_##suffix,                    \
        rtn_thumb_filter_row_##suffix, rtn_thumb_gather_##suffix,                                      \
        rtn_png_filter_row_##suffix, rtn_png_unfilter_row_##suffix, rtn_png_unfilter_rows_##suffix,      \
        rtn_png_expand_indexed_##suffix};

RTN_KERNELS(base, , 0)

#ifdef RTN_DISPATCH
RTN_KERNELS(avx2, __attribute__((target("avx2"))), 1)

// AVX2 needs the CPU's flag and the OS saving the YMM registers (OSXSAVE, XCR0 bits 1 and 2).
// Called by the loader before relocation is finished, so it calls nothing but cpuid and xgetbv,
// and nothing in it or the resolvers is instrumented by a sanitizer (whose runtime is not
// started yet: `swift test --sanitize=address` crashed in here). `no_sanitize("thread")` still
// lets ThreadSanitizer add its function entry hook, which crashed `--sanitize=thread` at load;
// `disable_sanitizer_instrumentation` removes every hook.
#if defined(__has_attribute) && __has_attribute(disable_sanitizer_instrumentation)
#define RTN_RESOLVER __attribute__((no_sanitize("address", "thread", "undefined"), disable_sanitizer_instrumentation))
#else
#define RTN_RESOLVER __attribute__((no_sanitize("address", "thread", "undefined")))
#endif
RTN_RESOLVER static int rtn_cpu_has_avx2(void) {
    // cpuid.h's __cpuid macros, not its functions: an unoptimized build would call those, and
    // they are instrumented.
    unsigned a, b, c, d;
    __cpuid(0, a, b, c, d);
    unsigned max_leaf = a;
    if (max_leaf < 1) return 0;
    __cpuid(1, a, b, c, d);
    if (!(c & bit_OSXSAVE) || !(c & bit_AVX)) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6) return 0;
    if (max_leaf < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & bit_AVX2) != 0;
}

RTN_RESOLVER static const rtn_thumb_kernel_set *rtn_best_kernels(void) {
    return rtn_cpu_has_avx2() ? &rtn_kernels_avx2 : &rtn_kernels_base;
}

// ifunc resolvers: run once by the dynamic loader; each returns the chosen path's function.
typedef void (*rtn_any_fn)(void);
RTN_RESOLVER static rtn_any_fn rtn_resolve_accumulate_rgba8(void) { return (rtn_any_fn)rtn_best_kernels()->accumulate_rgba8; }
RTN_RESOLVER static rtn_any_fn rtn_resolve_accumulate_indexed(void) { return (rtn_any_fn)rtn_best_kernels()->accumulate_indexed; }
RTN_RESOLVER static rtn_any_fn rtn_resolve_filter_row(void) { return (rtn_any_fn)rtn_best_kernels()->filter_row; }
RTN_RESOLVER static rtn_any_fn rtn_resolve_gather(void) { return (rtn_any_fn)rtn_best_kernels()->gather; }
RTN_RESOLVER static rtn_any_fn rtn_resolve_png_filter_row(void) { return (rtn_any_fn)rtn_best_kernels()->png_filter_row; }
RTN_RESOLVER static rtn_any_fn rtn_resolve_png_unfilter_row(void) { return (rtn_any_fn)rtn_best_kernels()->png_unfilter_row; }
RTN_RESOLVER static rtn_any_fn rtn_resolve_png_unfilter_rows(void) { return (rtn_any_fn)rtn_best_kernels()->png_unfilter_rows; }
RTN_RESOLVER static rtn_any_fn rtn_resolve_png_expand_indexed(void) { return (rtn_any_fn)rtn_best_kernels()->png_expand_indexed; }

void rtn_thumb_accumulate_rgba8(rtn_thumb_target *target, const uint8_t *row, size_t width,
                                rtn_thumb_pixels pixels, const float *to_linear)
    __attribute__((ifunc("rtn_resolve_accumulate_rgba8")));
void rtn_thumb_accumulate_indexed(rtn_thumb_target *target, const uint8_t *indices, size_t width,
                                  const float *table)
    __attribute__((ifunc("rtn_resolve_accumulate_indexed")));
void rtn_thumb_filter_row(const float *row, rtn_thumb_taps taps, size_t from, size_t to, float *out)
    __attribute__((ifunc("rtn_resolve_filter_row")));
void rtn_thumb_gather(const float *const *rows, const float *weights, size_t count, size_t width, float *out)
    __attribute__((ifunc("rtn_resolve_gather")));
int rtn_png_filter_row(const uint8_t *row, const uint8_t *prev, size_t length, size_t bpp, unsigned allowed,
                       uint8_t *out) __attribute__((ifunc("rtn_resolve_png_filter_row")));
int rtn_png_unfilter_row(int type, const uint8_t *in, const uint8_t *prev, size_t length, size_t bpp, uint8_t *out)
    __attribute__((ifunc("rtn_resolve_png_unfilter_row")));
int rtn_png_unfilter_rows(int type0, const uint8_t *in0, int type1, const uint8_t *in1, const uint8_t *prev,
                          size_t length, size_t bpp, uint8_t *out0, uint8_t *out1)
    __attribute__((ifunc("rtn_resolve_png_unfilter_rows")));
void rtn_png_expand_indexed(const uint8_t *row, size_t width, const uint32_t *table, uint8_t *out)
    __attribute__((ifunc("rtn_resolve_png_expand_indexed")));

const rtn_thumb_kernel_set *rtn_thumb_kernels(int path) {
    if (path == 0) return &rtn_kernels_base;
    if (path == 1) return rtn_cpu_has_avx2() ? &rtn_kernels_avx2 : NULL;
    return rtn_best_kernels();
}
#else
void rtn_thumb_accumulate_rgba8(rtn_thumb_target *target, const uint8_t *row, size_t width,
                                rtn_thumb_pixels pixels, const float *to_linear) {
    rtn_thumb_accumulate_rgba8_base(target, row, width, pixels, to_linear);
}
void rtn_thumb_accumulate_indexed(rtn_thumb_target *target, const uint8_t *indices, size_t width,
                                  const float *table) {
    rtn_thumb_accumulate_indexed_base(target, indices, width, table);
}
void rtn_thumb_filter_row(const float *row, rtn_thumb_taps taps, size_t from, size_t to, float *out) {
    rtn_thumb_filter_row_base(row, taps, from, to, out);
}
void rtn_thumb_gather(const float *const *rows, const float *weights, size_t count, size_t width, float *out) {
    rtn_thumb_gather_base(rows, weights, count, width, out);
}
int rtn_png_filter_row(const uint8_t *row, const uint8_t *prev, size_t length, size_t bpp, unsigned allowed,
                       uint8_t *out) {
    return rtn_png_filter_row_base(row, prev, length, bpp, allowed, out);
}
int rtn_png_unfilter_row(int type, const uint8_t *in, const uint8_t *prev, size_t length, size_t bpp, uint8_t *out) {
    return rtn_png_unfilter_row_base(type, in, prev, length, bpp, out);
}
int rtn_png_unfilter_rows(int type0, const uint8_t *in0, int type1, const uint8_t *in1, const uint8_t *prev,
                          size_t length, size_t bpp, uint8_t *out0, uint8_t *out1) {
    return rtn_png_unfilter_rows_base(type0, in0, type1, in1, prev, length, bpp, out0, out1);
}
void rtn_png_expand_indexed(const uint8_t *row, size_t width, const uint32_t *table, uint8_t *out) {
    rtn_png_expand_indexed_base(row, width, table, out);
}

const rtn_thumb_kernel_set *rtn_thumb_kernels(int path) {
    return path == 1 ? NULL : &rtn_kernels_base;
}
#endif

// True when the four samples at row + 4 * x (64 bytes) have a bit set: three ORs and one test.
// The floats' bits read as integers: may_alias, so the reads are defined C.
typedef uint32_t rtn_bits32 __attribute__((may_alias));
typedef uint32_t rtn_bits4x32 __attribute__((vector_size(16), aligned(4), may_alias));

static inline int rtn_any_bits4(const float *row, size_t x) {
    const rtn_bits4x32 *v = (const rtn_bits4x32 *)(row + 4 * x);
    rtn_bits4x32 any = (v[0] | v[1]) | (v[2] | v[3]);
    return ((any[0] | any[1]) | (any[2] | any[3])) != 0;
}

static inline int rtn_any_bits1(const float *row, size_t x) {
    const rtn_bits32 *bits = (const rtn_bits32 *)(row + 4 * x);
    return (bits[0] | bits[1] | bits[2] | bits[3]) != 0;
}

void rtn_thumb_nonzero_span(const float *row, size_t width, size_t *first, size_t *end) {
    size_t lo = 0, hi = width;
    while (lo + 4 <= width && !rtn_any_bits4(row, lo)) lo += 4;
    while (lo < width && !rtn_any_bits1(row, lo)) lo++;
    if (lo == width) {
        *first = *end = 0;
        return;
    }
    while (hi >= lo + 4 && !rtn_any_bits4(row, hi - 4)) hi -= 4;
    while (!rtn_any_bits1(row, hi - 1)) hi--;  // stops at lo, which has a bit set
    *first = lo;
    *end = hi;
}

RTN_INLINE float rtn_clamp255(float v) { return v < 0 ? 0 : (v > 255 ? 255 : v); }

void rtn_thumb_write_row(const float *row, size_t width, const uint8_t *from_linear,
                         size_t steps, uint8_t *out) {
    const rtn_f4 *src = (const rtn_f4 *)row;
    const float scale = (float)(steps - 1) / 255.0f;
    for (size_t x = 0; x < width; x++, out += 4) {
        rtn_f4 v = src[x];
        float alpha = v[3];
        if (!(alpha >= 0.5f)) {
            memset(out, 0, 4);
            continue;
        }
        rtn_f4 c = v * (255.0f / alpha);
        float r = rtn_clamp255(c[0]), g = rtn_clamp255(c[1]), b = rtn_clamp255(c[2]);
        float a = rtn_clamp255(alpha);
        if (from_linear != NULL) {
            out[0] = from_linear[(size_t)(r * scale + 0.5f)];
            out[1] = from_linear[(size_t)(g * scale + 0.5f)];
            out[2] = from_linear[(size_t)(b * scale + 0.5f)];
        } else {
            out[0] = (uint8_t)(r + 0.5f);
            out[1] = (uint8_t)(g + 0.5f);
            out[2] = (uint8_t)(b + 0.5f);
        }
        out[3] = (uint8_t)(a + 0.5f);
    }
}
