// The whole-image fast path: PNG chunks parsed and checked here, the image data inflated by
// libdeflate into the output bitmap itself, rows unfiltered and expanded to RGBA8 in place.
//
// It decodes only what it is sure libpng decodes to the same bytes: 8-bit samples (or 1, 2 or
// 4-bit palette indices), no interlace, every chunk where libpng wants it with a matching CRC,
// a zlib stream that inflates to exactly the filtered image and ends with the last IDAT byte
// and a matching Adler-32. Anything else it declines (RTN_PNG_DECLINED, with the reason) before or during the
// decode, and the caller decodes the file with libpng (CPNG.h), whose answer, success or error,
// then stands. It never reports an error of its own, never calls libpng and never longjmps.
//
// Every symbol carries the prefix `rtn_png_fast_`.
#ifndef RTN_CPNG_FAST_H
#define RTN_CPNG_FAST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The limits libpng would apply while reading the chunks (see rtn_png_limits): a file that
/// could meet one of them is declined, so libpng reports it as it always has.
typedef struct {
    /// Largest chunk libpng accepts (png_set_chunk_malloc_max; 0: libpng's 8,000,000); IDAT
    /// chunks may be as long as the image's filtered size allows, as libpng computes it.
    size_t chunk_malloc_max;
    /// More ancillary chunks than this are declined (png_set_chunk_cache_max; 0: no limit).
    uint32_t chunk_cache_max;
} rtn_png_fast_limits;

/// What the fast path found in a file: the header facts, where the image data is, and what the
/// decode needs. Filled by `rtn_png_fast_header` (from the first 33 bytes) and completed by
/// `rtn_png_fast_scan` (the whole file).
typedef struct {
    uint32_t width;
    uint32_t height;
    /// PNG colour type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA (8-bit but a palette).
    int color_type;
    /// Bytes a pixel as stored: 1, 3, 1, 2 or 4 by colour type (1 for packed indices too: the
    /// filters' unit).
    int bpp;
    /// height × (1 + row_bytes): the inflated, still filtered, image.
    size_t filtered_bytes;
    /// width × height × 4: the RGBA8 output, rows packed.
    size_t output_bytes;
    /// Where the inflated image ends in the output buffer: output_bytes + height for RGBA (it
    /// is inflated from the buffer's start, one byte a row longer than the output), else
    /// output_bytes (it is inflated to the end of the output and expanded forward).
    size_t inflate_end;
    /// The IDAT chunks (after a scan): how many, their payload bytes in all, the first one's
    /// payload offset in the file.
    uint32_t idat_count;
    size_t idat_bytes;
    size_t first_idat;
    /// PLTE and tRNS payloads (offset in the file, length; 0 when absent).
    size_t plte_offset, plte_length;
    size_t trns_offset, trns_length;
    /// Why the file was declined (a static string), or NULL.
    const char *reason;
    /// Bits a sample: 8, or 1, 2 or 4 for a palette (indices packed into bytes, which the
    /// whole-image decode unpacks; the row API declines them).
    int bit_depth;
    /// Bytes a row as stored, without its filter type: width × bpp, or width × bit_depth / 8
    /// rounded up.
    size_t row_bytes;
} rtn_png_fast_plan;

/// Reads the signature and IHDR from the first `size` bytes of a file (33 are enough) into
/// `plan`. RTN_PNG_OK when the fast path could take such an image, RTN_PNG_DECLINED (with
/// `plan->reason`) otherwise: not 8-bit (nor a 1, 2 or 4-bit palette), interlaced, or anything
/// libpng might see differently.
/// A few comparisons.
int rtn_png_fast_header(const uint8_t *data, size_t size, rtn_png_fast_plan *plan);

/// Walks every chunk of the file in `data` (`size` bytes) up to IEND, checking each CRC (a
/// pass over the compressed bytes at CRC-32's vector speed), the chunk order, PLTE and tRNS as
/// libpng checks them, and the zlib header. RTN_PNG_OK with `plan` complete, or
/// RTN_PNG_DECLINED with `plan->reason`. Allocates nothing.
int rtn_png_fast_scan(const uint8_t *data, size_t size, const rtn_png_fast_limits *limits,
                      rtn_png_fast_plan *plan);

/// The output buffer's size the decode needs when `staged` bytes of compressed input must sit
/// at its end (0 for the image data read where it lies, or gathered from several chunks into
/// memory of its own; the IDAT bytes to gather them in the buffer's tail; the whole file when
/// it is read into the buffer): `inflate_end` plus at most 256 KiB, since the inflate may
/// overtake compressed bytes it has already read. 0 when `staged` is too large for that (then
/// the fast path is not for this file). O(1).
size_t rtn_png_fast_capacity(const rtn_png_fast_plan *plan, size_t staged);

/// Decodes the scanned file `data` into `buffer` (`capacity` bytes, at least
/// `rtn_png_fast_capacity` for how the input is held): RGBA8 rows, width × 4 bytes apart, in
/// its first `output_bytes`. `data` may lie in the buffer's tail (a file read there); several
/// IDAT payloads are gathered at the buffer's end (in place when they are there already) when
/// the capacity leaves room for them, else in a temporary buffer of their size.
/// Inflates with libdeflate, bounded by the filtered size (a stream that inflates to more or
/// less, or fails its Adler-32, is declined, never an overrun), then unfilters and expands.
/// RTN_PNG_OK, or RTN_PNG_DECLINED with `plan->reason` (the buffer's contents are then
/// undefined; decode the file with libpng). On success the whole pages past the bitmap are
/// handed back (madvise MADV_DONTNEED), so only the bitmap stays resident. Costs libdeflate's
/// inflate, a pass to unfilter and expand, and a decompressor's allocation (about 10 KB).
int rtn_png_fast_decode(rtn_png_fast_plan *plan, const uint8_t *data, uint8_t *buffer, size_t capacity);

/// Sets a scanned plan to inflate at the buffer's start (`inflate_end` = `filtered_bytes`), for
/// reading rows with `rtn_png_fast_rows_open`; `rtn_png_fast_capacity` then sizes that buffer.
void rtn_png_fast_plan_for_rows(rtn_png_fast_plan *plan);

/// Rows of a whole-image inflate handed out a batch at a time (the thumbnailer's option). Opaque.
typedef struct rtn_png_fast_rows rtn_png_fast_rows;

/// Inflates the scanned file `data` into `buffer` (`capacity` bytes, at least
/// `rtn_png_fast_capacity` after `rtn_png_fast_plan_for_rows`; `data` may lie in its tail) and
/// checks every row's filter type, so that reading rows cannot fail. Rows come as
/// `pixel_bytes` says: 4, RGBA8 as `rtn_png_fast_decode` writes them; 1, for a palette image or
/// a gray one without tRNS, the bytes as stored, with `rgba` (256 × 4 bytes) receiving what each
/// stands for (as `rtn_png_reader_start_indexed`); 3, for an RGB image without tRNS, as stored.
/// NULL, with `plan->reason`, when the fast path declines (then read the file with libpng).
/// Costs the inflate and two rows of scratch.
rtn_png_fast_rows *rtn_png_fast_rows_open(rtn_png_fast_plan *plan, const uint8_t *data, uint8_t *buffer,
                                          size_t capacity, int pixel_bytes, uint8_t *rgba);

/// The next `count` rows into `dst`, rows `stride` bytes apart: RTN_PNG_OK, or RTN_PNG_USAGE
/// (nothing written) past the last row. An unfilter (and expansion) a row.
int rtn_png_fast_rows_read(rtn_png_fast_rows *rows, uint8_t *dst, size_t stride, uint32_t count);

/// Frees the rows' state (not the caller's buffer). NULL is ignored.
void rtn_png_fast_rows_close(rtn_png_fast_rows *rows);

/// Rows inflated two at a time (by ISA-L, or by zlib where the first deflate block is fixed or
/// its header is not in the first bytes at hand: `rtn_png_stream_rows_inflater`), for an image
/// whose filtered bytes are over the whole-inflate allowance: memory is a few rows, the
/// inflater's state and window (ISA-L's 88 KiB, zlib's 40) and, for a file, a 64 KiB read
/// buffer, never the image. Opaque.
typedef struct rtn_png_stream_rows rtn_png_stream_rows;

/// Reads the signature, IHDR and the chunks before the image data of the PNG in memory
/// (`data`, `size` bytes; `fd` -1) or in the file `fd` (read with pread from offset 0, so the
/// descriptor's offset is left alone; not taken), checking each chunk as `rtn_png_fast_scan`
/// does, and readies the inflater. ISA-L takes a stream whose first block zlib accepts
/// (`rtn_fast_first_block`'s rule) and always checks the Adler-32 (a mismatch declines, and
/// libpng's answer stands); blocks after the first carry the leniency the whole-image inflate's
/// libdeflate has (docs/libraries.md). zlib checks the Adler-32 only when `verify_adler32` is
/// set (or when libpng cannot skip it), as CPNG's reader has libpng do. Rows come as `rtn_png_fast_rows_open` hands them (`pixel_bytes` 4,
/// 1 with `rgba`, or 3). NULL, with `*reason` (a static string), when the fast path declines:
/// then read the file with libpng. Later chunks are checked as they are met (reads and
/// `rtn_png_stream_rows_finish`). Costs the chunks' CRCs before the image data, five rows and
/// the inflater's state (at most 88 KiB).
rtn_png_stream_rows *rtn_png_stream_rows_open(const uint8_t *data, size_t size, int fd, const rtn_png_fast_limits *limits,
                                              int verify_adler32, int pixel_bytes, uint8_t *rgba, const char **reason);

/// Before the first row is read: starts a helper thread that reads the file, checks the IDATs'
/// CRCs and inflates the rows into a ring of about `ring_bytes` (at least two rows, at most
/// the image's), while `rtn_png_stream_rows_read` unfilters and expands them on the caller's
/// thread: two cores for one image. The same rows, checks and declines. Returns the ring's
/// size in bytes, or 0 when no helper was started (no memory, no thread, rows already read):
/// the rows then come as before, from the caller's thread alone. The helper is joined by
/// `rtn_png_stream_rows_finish`, a declined read, or `rtn_png_stream_rows_close`. Costs a
/// thread's start (tens of microseconds), its 256 KiB stack and the ring.
size_t rtn_png_stream_rows_pipeline(rtn_png_stream_rows *rows, size_t ring_bytes);

/// The next `count` rows into `dst`, rows `stride` bytes apart, inflated, their IDATs' CRCs
/// checked, unfiltered and expanded: RTN_PNG_OK; RTN_PNG_USAGE (nothing read) past the last
/// row; RTN_PNG_DECLINED (`rtn_png_stream_rows_reason`) when the data is not the fast path's
/// (a CRC, a zlib error, a stream that ends early, a filter type above 4): rows read so far
/// stand for nothing then, and the file is read again with libpng, whose answer stands.
int rtn_png_stream_rows_read(rtn_png_stream_rows *rows, uint8_t *dst, size_t stride, uint32_t count);

/// After the last row: checks that the zlib stream ends there (its Adler-32 matching, when
/// checked) with the
/// last IDAT byte, and walks the chunks after it to IEND as `rtn_png_fast_scan` would.
/// RTN_PNG_OK, RTN_PNG_DECLINED (then the rows stand for nothing, as above), or RTN_PNG_USAGE
/// before the last row. Reads the rest of the file.
int rtn_png_stream_rows_finish(rtn_png_stream_rows *rows);

/// Which inflater the rows come from: 1 for ISA-L's (a stream whose first deflate block is
/// stored, or dynamic with a header zlib accepts within the first IDAT bytes in hand, up to
/// 4 KiB), 0 for zlib's (any other). O(1).
int rtn_png_stream_rows_inflater(const rtn_png_stream_rows *rows);

/// Why the rows were declined (a static string).
const char *rtn_png_stream_rows_reason(const rtn_png_stream_rows *rows);

/// Frees the rows' state (the descriptor is the caller's). NULL is ignored.
void rtn_png_stream_rows_close(rtn_png_stream_rows *rows);

/// libdeflate's version string (e.g. "1.14").
const char *rtn_png_fast_libdeflate_version(void);

#ifdef __cplusplus
}
#endif

#endif /* RTN_CPNG_FAST_H */
