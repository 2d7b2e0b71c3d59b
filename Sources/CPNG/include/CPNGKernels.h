// The thumbnailer's per-pixel loops (Sources/Imaging/Thumbnail) and the PNG encoder's row
// filter, in C.
//
// They live here rather than in Swift so that a debug build stays usable: unoptimized Swift
// keeps every SIMD4 operator and numeric conversion a generic call (a 1 MP thumbnail took
// 1.2 s at -Onone), while unoptimized C keeps plain loads, stores and vector instructions.
// Nothing here calls libpng, allocates or fails; the caller owns every buffer.
//
// Sample rows are premultiplied RGBA as 4 floats per pixel on a 0...255 scale. Every symbol
// carries the prefix `rtn_thumb_`, but the encoder's `rtn_png_filter_row` and the decoder's
// `rtn_png_unfilter_row`.
#ifndef RTN_CPNG_KERNELS_H
#define RTN_CPNG_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Precomputed taps for one axis: output `i` is the sum over `k < count[i]` of input
/// `first[i] + k` times `weights[i * stride + k]`. Built and owned by the Swift side.
///
/// `fixed_count`, when not 0, says every output has that many taps (even, 2...16; the weights
/// array then has 4 floats to spare past its end): one unrolled loop serves the whole row.
///
/// Outputs `uniform_from ..< uniform_to` (an empty range: none) have the same taps, relative to
/// their `first`: `uniform_count` of them, whose weights `uniform_pairs` repeats as 8-float pairs
/// (tap 2m four times, then tap 2m + 1 four times; a 0 past the count), at most 8 pairs. Their
/// inputs up to `first[i] + 2 * pairs` must lie inside the row. The kernel keeps those weights
/// in registers (at 2:1, Lanczos-3's interior: every output but a few at each edge).
typedef struct {
    const int32_t *first;
    const int32_t *count;
    const float *weights;
    size_t stride;
    size_t outputs;
    int32_t fixed_count;
    const float *uniform_pairs;
    size_t uniform_from;
    size_t uniform_to;
    int32_t uniform_count;
} rtn_thumb_taps;

/// Where a vertical pass puts one input row: into `acc` (a row of samples) its samples times
/// `weight` are added, or stored when `fresh` is 1 (the first input that output row takes, so
/// no row is zeroed before it); into `next`, when not NULL, its samples times `next_weight` are
/// stored (the row also starts the next output row: one conversion serves both).
///
/// Spans: the kernel sets `row_lo ..< row_hi`, outside which this row's samples are zero. Only
/// RTN_THUMB_PREMULTIPLY_WEIGHTED (RGBA rows) looks for them, between the row's fully
/// transparent ends (0 ..< 0 for a fully transparent row); every other kind reports the whole
/// row and writes all of it. A stored RGBA row writes only its span, and clears what of the
/// destination may be nonzero outside it: with `known` 1, `acc` (read when fresh) and `next`
/// hold zeros outside `acc_lo ..< acc_hi` and `next_lo ..< next_hi`, so only the difference is
/// cleared (and nothing when the destination's span is empty); with `known` 0, everything
/// outside the row's span is.
typedef struct {
    float *acc;
    float weight;
    int fresh;
    float *next;
    float next_weight;
    int known;
    size_t acc_lo, acc_hi, next_lo, next_hi;
    size_t row_lo, row_hi;
} rtn_thumb_target;

/// How a decoded RGBA8 pixel becomes a premultiplied sample.
typedef enum {
    /// The bytes as they are (an opaque source).
    RTN_THUMB_OPAQUE = 0,
    /// Color multiplied by alpha / 255, then by the weight: the products a palette's table of
    /// samples gives, so palette rows read as indices sum to the same bits as expanded rows.
    RTN_THUMB_PREMULTIPLY = 1,
    /// Each color byte through the sRGB → linear table, then multiplied by alpha / 255.
    RTN_THUMB_LINEAR = 2,
    /// As RTN_THUMB_PREMULTIPLY with alpha × weight / 255 made first, so each pixel takes one
    /// multiply fewer (RGBA sources, whose rows are never read as indices); the sums differ from
    /// RTN_THUMB_PREMULTIPLY's only by rounding.
    RTN_THUMB_PREMULTIPLY_WEIGHTED = 3,
    /// Three bytes a pixel (an RGB image read without libpng's filler): alpha is 255.
    RTN_THUMB_RGB = 4
} rtn_thumb_pixels;

/// One decoded RGBA8 row's share of area-averaged rows (RGB8 for RTN_THUMB_RGB): its samples
/// into `target`, `width` pixels (4 floats each) read as `pixels` says. `to_linear` (256 floats) is read only for
/// RTN_THUMB_LINEAR. A conversion and a multiply-add per pixel and output row, two pixels per
/// instruction with AVX2; a row that ends one output row and starts the next is converted once.
void rtn_thumb_accumulate_rgba8(rtn_thumb_target *target, const uint8_t *row, size_t width,
                                rtn_thumb_pixels pixels, const float *to_linear);

/// As `rtn_thumb_accumulate_rgba8` for a row of one-byte indices (a palette image's, or 8-bit
/// gray): sample x is `table[indices[x]]`, where `table` holds 256 samples (4 floats each) made
/// by the RGBA8 kernel from what each index stands for, so the sums are the same bits as
/// expanding the row first. A load and a multiply-add per pixel.
void rtn_thumb_accumulate_indexed(rtn_thumb_target *target, const uint8_t *indices, size_t width,
                                  const float *table);

/// The horizontal filter pass over one sample row, outputs `from ..< to` (at most
/// taps.outputs; the others are not written): `out[i]` is the weighted sum of the samples of
/// `row` that `taps` names. One multiply-add per tap (two taps per instruction with AVX2; the
/// uniform outputs with their weights held in registers).
void rtn_thumb_filter_row(const float *row, rtn_thumb_taps taps, size_t from, size_t to, float *out);

/// One output row of a vertical filter pass from the input rows it takes: `out[x]` is the sum
/// over `k < count` of `rows[k][x]` times `weights[k]`, `width` samples, added in that order. Up
/// to 16 rows with the weights in registers: a load and a multiply-add per row and two samples.
void rtn_thumb_gather(const float *const *rows, const float *weights, size_t count, size_t width, float *out);

/// The PNG encoder's row filter (Sources/CPNG/writer.c), with libpng's choice of filter.
/// `row` and `prev` (the unfiltered row above; all zero for the first row) are `length` bytes
/// of `bpp`-byte pixels. `allowed` holds bit t for each filter type t that may be used (0 none,
/// 1 sub, 2 up, 3 average, 4 paeth). With one bit, that filter is applied; with more, each is
/// scored by the sum of its residuals' magnitudes read as signed bytes and the lowest score
/// wins, the lowest type on ties: libpng's heuristic, so the bytes are libpng's own. Writes the
/// type to `out[0]` and the filtered row to `out[1...length]`; returns the type. About two
/// vector operations a byte for all five scores (libpng's loop takes tens of instructions).
int rtn_png_filter_row(const uint8_t *row, const uint8_t *prev, size_t length, size_t bpp, unsigned allowed,
                       uint8_t *out);

/// The decoder's inverse of `rtn_png_filter_row`: reverses PNG filter `type` (0 none, 1 sub,
/// 2 up, 3 average, 4 paeth) on one row of `length` bytes of `bpp`-byte pixels. `out` receives
/// the samples from the filtered bytes `in` and the unfiltered row above `prev` (all zero for the
/// first row); it may be `in`, or lie before it in the same buffer (an in-place unfilter moving
/// rows toward the buffer's start), but must not overlap `prev`. Returns 0, or -1 (nothing
/// written) for a type above 4. One vector operation per 32 bytes for Up, per pixel for Sub,
/// Average and Paeth with 3 or 4 bytes a pixel, a few per byte otherwise.
int rtn_png_unfilter_row(int type, const uint8_t *in, const uint8_t *prev, size_t length, size_t bpp, uint8_t *out);

/// Two consecutive rows at once: row 0 (`type0`, `in0`, the row above `prev`) into `out0`, and
/// row 1 (`type1`, `in1`, the row above being row 0) into `out1`, the same bytes as two calls
/// of `rtn_png_unfilter_row`. When both rows are Sub, Average or Paeth with 3 or 4 bytes a
/// pixel they go pixel by pixel side by side, which takes about 0.6x the time of two calls
/// (each row's chain of dependent steps overlaps the other's); otherwise it is those two calls.
/// `out0` may be `in0` or lie before it as above; `out1` must overlap none of `in0`, `prev`
/// and `out0`, nor the bytes of `in1` after the pixel it is writing. Returns 0, or -1 (nothing
/// written) when either type is above 4.
int rtn_png_unfilter_rows(int type0, const uint8_t *in0, int type1, const uint8_t *in1, const uint8_t *prev,
                          size_t length, size_t bpp, uint8_t *out0, uint8_t *out1);

/// The decoder's expansion of a row of `width` one-byte samples (palette indices, or 8-bit gray
/// levels) to RGBA8: pixel x of `out` (4 * width bytes) is `table[row[x]]`, the four bytes in
/// memory order. Reads exactly `width` bytes. About a quarter of a store-per-pixel loop's time:
/// 16 pixels a step, two vector stores, and a run of one index one broadcast.
void rtn_png_expand_indexed(const uint8_t *row, size_t width, const uint32_t *table, uint8_t *out);

/// The samples `*first ..< *end` of a row of `width` samples (4 floats each) hold every one
/// whose bits are not all zero (a premultiplied sample is zero where the source is fully
/// transparent); both are 0 for a zero row. The filter stages compute only the outputs that
/// such a span reaches, since the others are zero. Reads from each end until the first nonzero
/// sample: at most the row once, three ORs and a test per 64 bytes.
void rtn_thumb_nonzero_span(const float *row, size_t width, size_t *first, size_t *end);

/// One dispatch path's kernels, for tests that run each path against a reference.
typedef struct {
    void (*accumulate_rgba8)(rtn_thumb_target *, const uint8_t *, size_t, rtn_thumb_pixels, const float *);
    void (*accumulate_indexed)(rtn_thumb_target *, const uint8_t *, size_t, const float *);
    void (*filter_row)(const float *, rtn_thumb_taps, size_t, size_t, float *);
    void (*gather)(const float *const *, const float *, size_t, size_t, float *);
    int (*png_filter_row)(const uint8_t *, const uint8_t *, size_t, size_t, unsigned, uint8_t *);
    int (*png_unfilter_row)(int, const uint8_t *, const uint8_t *, size_t, size_t, uint8_t *);
    int (*png_unfilter_rows)(int, const uint8_t *, int, const uint8_t *, const uint8_t *, size_t, size_t, uint8_t *,
                             uint8_t *);
    void (*png_expand_indexed)(const uint8_t *, size_t, const uint32_t *, uint8_t *);
} rtn_thumb_kernel_set;

/// The kernels of dispatch path `path`: 0 the baseline (any CPU), 1 AVX2 (NULL where this CPU
/// or architecture has none), anything else the path the public functions use, which the
/// dynamic loader chose once (an ifunc on x86-64). Both paths give the same bits.
const rtn_thumb_kernel_set *rtn_thumb_kernels(int path);

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
