// CPNG: the only code in Retention that sees libpng's setjmp/longjmp.
//
// libpng reports errors by longjmp, and Swift cannot call setjmp, so every function here
// sets its own jump buffer before it calls libpng and returns a status code with the
// message copied out. No Swift frame ever sits between a setjmp and its longjmp: the read
// callback is C, the error callback is C, and Swift only sees whole operations.
//
// Every symbol here carries the prefix `rtn_png_`. The module also holds the thumbnailer's
// per-pixel loops (CPNGKernels.h, included below; they never touch libpng) and the whole-image
// fast path on libdeflate (CPNGFast.h, which never touches libpng either).
#ifndef RTN_CPNG_H
#define RTN_CPNG_H

#include <stddef.h>
#include <stdint.h>

#include "CPNGKernels.h"
#include "CPNGFast.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes returned by every function that can fail.
typedef enum {
    RTN_PNG_OK = 0,
    /// The signature is not PNG's.
    RTN_PNG_NOT_PNG = 1,
    /// The data ended before the image did.
    RTN_PNG_TRUNCATED = 2,
    /// libpng rejected the data; the message says why.
    RTN_PNG_CORRUPT = 3,
    /// A libpng user limit (width, height, chunk cache, chunk malloc) was exceeded.
    RTN_PNG_LIMIT = 4,
    /// An allocation inside libpng failed.
    RTN_PNG_NO_MEMORY = 5,
    /// A file could not be opened or read; `sys_errno` holds errno.
    RTN_PNG_IO = 6,
    /// The caller misused the API (wrong buffer size, call out of order).
    RTN_PNG_USAGE = 7,
    /// The whole-image fast path (CPNGFast.h) does not take this file: decode it with libpng.
    RTN_PNG_DECLINED = 8
} rtn_png_status;

/// Header facts, read without touching pixel data.
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    /// 1 when the file has a tRNS chunk.
    int has_trns;
    /// Number of passes libpng makes (1, or 7 for Adam7).
    int passes;
} rtn_png_header;

/// libpng's own limits, applied while reading (0 keeps libpng's default).
typedef struct {
    uint32_t max_width;
    uint32_t max_height;
    /// Maximum number of ancillary chunks cached (png_set_chunk_cache_max).
    uint32_t chunk_cache_max;
    /// Maximum bytes for one chunk's decompressed data (png_set_chunk_malloc_max).
    size_t chunk_malloc_max;
    /// 1: zlib verifies the Adler-32 that ends the image data (libpng's default), and a
    /// mismatch fails the read. 0 (the default here, as in libvips): the check is skipped
    /// (png_set_option PNG_IGNORE_ADLER32), which saves zlib a checksum pass over every
    /// decompressed byte; each chunk's CRC-32 is still checked.
    int verify_adler32;
} rtn_png_limits;

/// An error's details, copied out of libpng before the jump.
typedef struct {
    rtn_png_status status;
    int sys_errno;
    char message[256];
    /// For RTN_PNG_NOT_PNG from a file: its first bytes (up to 16), so the caller can say
    /// what the file looks like without opening it again.
    uint8_t leading[16];
    int leading_count;
} rtn_png_error;

/// An open reader: header read, ready to hand out RGBA8 rows. Opaque.
typedef struct rtn_png_reader rtn_png_reader;

/// Opens a reader over memory the caller keeps alive until `rtn_png_reader_close`.
/// Reads the signature and every chunk up to the first IDAT and fills `header`; allocates
/// nothing proportional to the image, so limits can be checked before `rtn_png_reader_start`.
/// Returns NULL on failure with `err` filled.
rtn_png_reader *rtn_png_reader_open_memory(const uint8_t *data, size_t size,
                                           const rtn_png_limits *limits,
                                           rtn_png_header *header, rtn_png_error *err);

/// Opens a reader over the open file descriptor `fd`, read from its current offset through a
/// stdio buffer (fdopen) so the compressed bytes are never held whole. Takes ownership of `fd`
/// on every path: it is closed exactly once, by `rtn_png_reader_close` (fclose) or, when this
/// returns NULL, before returning (fclose, or close when fdopen failed). The caller checks
/// the descriptor (a regular file, its size) first, so the file checked is the file read.
/// Otherwise as `rtn_png_reader_open_memory`.
rtn_png_reader *rtn_png_reader_open_fd(int fd, const rtn_png_limits *limits,
                                       rtn_png_header *header, rtn_png_error *err);

/// Sets the transforms to RGBA8 (expand palette and low bit depths, gray to RGB, tRNS to
/// alpha, 16 to 8 bits with rounding, opaque filler; no gamma or color conversion) and lets
/// libpng allocate its row buffers (a few rows' worth). Call once, after the header checks.
rtn_png_status rtn_png_reader_start(rtn_png_reader *reader, rtn_png_error *err);

/// Instead of `rtn_png_reader_start`, for a non-interlaced palette image or a gray one without
/// tRNS: rows come as one byte per pixel, the palette index (depths below 8 unpacked) or the
/// gray level (scaled to 8 bits as `rtn_png_reader_start` scales it), and `rgba` (256 × 4 bytes)
/// receives the RGBA8 pixel each byte value stands for there (an index past the palette is
/// black, as libpng expands it). libpng then skips its expansion to four bytes a pixel.
/// Returns RTN_PNG_USAGE, doing nothing, for any other image (use `rtn_png_reader_start`).
rtn_png_status rtn_png_reader_start_indexed(rtn_png_reader *reader, uint8_t *rgba, rtn_png_error *err);

/// Instead of `rtn_png_reader_start`, for a non-interlaced 8-bit RGB image without tRNS: rows
/// come as stored, three bytes a pixel, and libpng skips adding the opaque alpha byte (the
/// thumbnailer's kernel reads RGB rows as they are). Returns RTN_PNG_USAGE, doing nothing, for
/// any other image.
rtn_png_status rtn_png_reader_start_rgb(rtn_png_reader *reader, rtn_png_error *err);

/// Decodes the whole image (any interlace) into `dst`, `height` rows of `stride` bytes,
/// each row width*4 bytes of RGBA8, then reads the chunks after the image data.
/// Call at most once, and not after `rtn_png_reader_read_rows`.
rtn_png_status rtn_png_reader_read_image(rtn_png_reader *reader, uint8_t *dst, size_t stride,
                                         rtn_png_error *err);

/// Decodes the next `count` rows of a non-interlaced image into `dst` (rows `stride` apart;
/// each row width*4 bytes of RGBA8, width bytes after `rtn_png_reader_start_indexed`, width*3
/// after `rtn_png_reader_start_rgb`).
/// After the last row it reads the chunks after the image data. Interlaced images return
/// RTN_PNG_USAGE: they cannot stream and need `rtn_png_reader_read_image`.
rtn_png_status rtn_png_reader_read_rows(rtn_png_reader *reader, uint8_t *dst, size_t stride,
                                        uint32_t count, rtn_png_error *err);

/// Number of warnings libpng reported so far (warnings are counted, never printed).
int rtn_png_reader_warning_count(const rtn_png_reader *reader);

/// Closes the reader and frees every libpng structure it owns. NULL is ignored.
void rtn_png_reader_close(rtn_png_reader *reader);

/// Filter choices for the encoder.
typedef enum {
    RTN_PNG_FILTER_NONE = 0,
    RTN_PNG_FILTER_SUB = 1,
    RTN_PNG_FILTER_UP = 2,
    RTN_PNG_FILTER_AVERAGE = 3,
    RTN_PNG_FILTER_PAETH = 4,
    /// libpng's adaptive choice over all five filters per row.
    RTN_PNG_FILTER_ADAPTIVE = 5
} rtn_png_filter;

/// What to encode: rows of samples as they will be stored in the file.
typedef struct {
    /// `height` rows, `stride` bytes apart. For color type 2 with `strip_filler`, each pixel
    /// is 4 bytes in memory (RGBA8) and the 4th is dropped; otherwise rows hold exactly the
    /// samples of `color_type` at `bit_depth` (packed for depths below 8).
    const uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    size_t stride;
    /// PNG color type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA.
    int color_type;
    /// 1, 2, 4, 8 or 16 (as the PNG specification allows for the color type).
    int bit_depth;
    /// Color type 2 only: input rows are RGBA8 and the alpha byte is stripped.
    int strip_filler;
    /// Color type 3 only: `palette_count` RGB triples.
    const uint8_t *palette;
    int palette_count;
    /// Optional tRNS: alpha per palette entry (type 3), or one 16-bit gray (type 0,
    /// `trns_count` 1) or RGB (type 2, 3 values) key color given in `trns_color`.
    const uint8_t *trns_alpha;
    int trns_count;
    uint16_t trns_color[3];
    /// 1 writes Adam7 interlaced.
    int interlaced;
    /// zlib level 0–9.
    int level;
    rtn_png_filter filter;
    /// 1: zlib's run-length strategy (Z_RLE), which matches only repeats of the byte just
    /// before; any level but 0 then compresses alike. 0: libpng's default matching at `level`.
    int run_length;
    /// 1: every row goes through libpng's own filtering and compression (png_write_row), as
    /// interlaced and 16-bit images always do. 0 (the default): 8-bit rows that are not
    /// interlaced are filtered by `rtn_png_filter_row` and compressed by zlib here, with
    /// libpng's parameters, and written as IDAT chunks through libpng, which gives the same
    /// bytes (the tests compare the two).
    int libpng_rows;
} rtn_png_encode_params;

/// Encodes `params` as PNG. On success `*out` is a malloc'd buffer of `*out_size` bytes that
/// the caller frees with `rtn_png_free`.
rtn_png_status rtn_png_encode(const rtn_png_encode_params *params, uint8_t **out,
                              size_t *out_size, rtn_png_error *err);

/// Encodes `params` as PNG without libpng or zlib (Sources/CPNG/encoder.c): each row filtered
/// as `rtn_png_encode` filters it (`filter`; adaptive is libpng's per-row choice), then a
/// deflate stream of literals and runs (of the byte or the pixel before), each block of about
/// 128 KiB coded with its own Huffman table, fixed codes or stored, whichever is smallest.
/// Several times faster than zlib's run-length strategy, for files of about the same size
/// (docs/results.md, section encoder). 8-bit, non-interlaced images only (`bit_depth` 8,
/// `interlaced` 0; `level`, `run_length` and `libpng_rows` are ignored): anything else returns
/// RTN_PNG_USAGE. Costs O(pixels), one pass over the image; memory: two rows, one block of
/// filtered rows and the output (at most the stored size). On success `*out` is a malloc'd
/// buffer of `*out_size` bytes that the caller frees with `rtn_png_free`.
rtn_png_status rtn_png_encode_fast(const rtn_png_encode_params *params, uint8_t **out,
                                   size_t *out_size, rtn_png_error *err);

/// Frees a buffer returned by `rtn_png_encode` or `rtn_png_encode_fast`.
void rtn_png_free(void *buffer);

/// The libpng version string this shim runs against (e.g. "1.6.39").
const char *rtn_png_libpng_version(void);

#ifdef __cplusplus
}
#endif

#endif /* RTN_CPNG_H */
