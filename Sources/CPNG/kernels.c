// The thumbnailer's per-pixel loops; see include/CPNGKernels.h for why they are C.
//
// Written with GCC/Clang vector types so that each step on a pixel is one vector instruction
// even at -O0 (a debug build), and the helpers are always inlined, which Clang does at -O0
// too. Contraction into fused multiply-adds is off so the arithmetic, and the output, does not
// depend on the target's instruction set.
#include "CPNGKernels.h"

#include <string.h>

#pragma STDC FP_CONTRACT OFF

#define RTN_INLINE static inline __attribute__((always_inline))

// Four floats, alignment 4: rows need no more than malloc'd float alignment.
typedef float rtn_f4 __attribute__((vector_size(16), aligned(4)));
typedef int32_t rtn_i4 __attribute__((vector_size(16)));
typedef uint8_t rtn_b4 __attribute__((vector_size(4), aligned(1)));

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

void rtn_thumb_reduce_rgba8(const uint8_t *row, rtn_thumb_taps taps, rtn_thumb_pixels pixels,
                            const float *to_linear, float *out) {
    rtn_f4 *dst = (rtn_f4 *)out;
    // One loop per pixel kind, so the inner loop carries no branch.
    switch (pixels) {
    case RTN_THUMB_OPAQUE:
        for (size_t i = 0; i < taps.outputs; i++) {
            const uint8_t *p = row + (size_t)taps.first[i] * 4;
            const float *w = taps.weights + i * taps.stride;
            rtn_f4 sum = {0, 0, 0, 0};
            for (int32_t k = 0, n = taps.count[i]; k < n; k++) sum += rtn_load_rgba8(p + 4 * k) * w[k];
            dst[i] = sum;
        }
        break;
    case RTN_THUMB_PREMULTIPLY:
        for (size_t i = 0; i < taps.outputs; i++) {
            const uint8_t *p = row + (size_t)taps.first[i] * 4;
            const float *w = taps.weights + i * taps.stride;
            rtn_f4 sum = {0, 0, 0, 0};
            for (int32_t k = 0, n = taps.count[i]; k < n; k++) sum += rtn_load_premultiplied(p + 4 * k) * w[k];
            dst[i] = sum;
        }
        break;
    case RTN_THUMB_LINEAR:
        for (size_t i = 0; i < taps.outputs; i++) {
            const uint8_t *p = row + (size_t)taps.first[i] * 4;
            const float *w = taps.weights + i * taps.stride;
            rtn_f4 sum = {0, 0, 0, 0};
            for (int32_t k = 0, n = taps.count[i]; k < n; k++) sum += rtn_load_linear(p + 4 * k, to_linear) * w[k];
            dst[i] = sum;
        }
        break;
    }
}

void rtn_thumb_filter_row(const float *row, rtn_thumb_taps taps, float *out) {
    const rtn_f4 *src = (const rtn_f4 *)row;
    rtn_f4 *dst = (rtn_f4 *)out;
    for (size_t i = 0; i < taps.outputs; i++) {
        const rtn_f4 *p = src + taps.first[i];
        const float *w = taps.weights + i * taps.stride;
        rtn_f4 sum = {0, 0, 0, 0};
        for (int32_t k = 0, n = taps.count[i]; k < n; k++) sum += p[k] * w[k];
        dst[i] = sum;
    }
}

void rtn_thumb_accumulate(float *acc, const float *row, float weight, size_t width) {
    rtn_f4 *a = (rtn_f4 *)acc;
    const rtn_f4 *r = (const rtn_f4 *)row;
    for (size_t x = 0; x < width; x++) a[x] += r[x] * weight;
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
