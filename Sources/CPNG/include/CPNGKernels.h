// The thumbnailer's per-pixel loops (Sources/Imaging/Thumbnail), in C.
//
// They live here rather than in Swift so that a debug build stays usable: unoptimized Swift
// keeps every SIMD4 operator and numeric conversion a generic call (a 1 MP thumbnail took
// 1.2 s at -Onone), while unoptimized C keeps plain loads, stores and vector instructions.
// Nothing here calls libpng, allocates or fails; the caller owns every buffer.
//
// Sample rows are premultiplied RGBA as 4 floats per pixel on a 0...255 scale. Every symbol
// carries the prefix `rtn_thumb_`.
#ifndef RTN_CPNG_KERNELS_H
#define RTN_CPNG_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Precomputed taps for one axis: output `i` is the sum over `k < count[i]` of input
/// `first[i] + k` times `weights[i * stride + k]`. Built and owned by the Swift side.
typedef struct {
    const int32_t *first;
    const int32_t *count;
    const float *weights;
    size_t stride;
    size_t outputs;
} rtn_thumb_taps;

/// How a decoded RGBA8 pixel becomes a premultiplied sample.
typedef enum {
    /// The bytes as they are (an opaque source).
    RTN_THUMB_OPAQUE = 0,
    /// Color multiplied by alpha / 255.
    RTN_THUMB_PREMULTIPLY = 1,
    /// Each color byte through the sRGB → linear table, then multiplied by alpha / 255.
    RTN_THUMB_LINEAR = 2
} rtn_thumb_pixels;

/// The horizontal area pass over one decoded RGBA8 row: `out[i]` (taps.outputs samples) is
/// the weighted sum of the pixels `taps` names, each read as `pixels` says. `to_linear` (256
/// floats) is read only for RTN_THUMB_LINEAR. Costs one conversion and multiply-add per tap.
void rtn_thumb_reduce_rgba8(const uint8_t *row, rtn_thumb_taps taps, rtn_thumb_pixels pixels,
                            const float *to_linear, float *out);

/// The horizontal filter pass over one sample row: `out[i]` (taps.outputs samples) is the
/// weighted sum of the samples of `row` that `taps` names. One multiply-add per tap.
void rtn_thumb_filter_row(const float *row, rtn_thumb_taps taps, float *out);

/// `acc[x] += row[x] * weight` for `width` samples: one input row's share of an output row.
void rtn_thumb_accumulate(float *acc, const float *row, float weight, size_t width);

/// One output row of `width` samples to RGBA8 with straight alpha: un-premultiplied (a
/// sample whose alpha rounds to 0 becomes transparent black), clamped to 0...255, rounded;
/// with `from_linear` (`steps` entries, linear 0...1 → sRGB byte) color goes back through
/// that table. A division and a few comparisons per sample.
void rtn_thumb_write_row(const float *row, size_t width, const uint8_t *from_linear,
                         size_t steps, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif /* RTN_CPNG_KERNELS_H */
