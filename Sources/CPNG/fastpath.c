// The whole-image fast path; see include/CPNGFast.h for what it takes and why it declines.
//
// The rule kept throughout: decline whenever libpng might answer differently. libpng (with
// CPNG's settings: every ancillary chunk but tRNS skipped, user limits from DecodeLimits) then
// decodes the file, so its pixels, warnings and errors stand for every file this path does not
// finish. What this path accepts is a file libpng decodes without a warning:
// - the signature, then IHDR (13 bytes: 8-bit, colour type 0, 2, 3, 4 or 6, or a 1, 2 or
//   4-bit palette; compression 0, filter 0, no interlace, width and height 1...2^31-1);
// - before the image data, PLTE (colour type 3 only, 1...256 entries, at most 2^depth of
//   them) and tRNS (after PLTE, at most one entry per palette colour; a gray or RGB key whose
//   samples fit in 8 bits), at most once each; ancillary chunks anywhere, skipped;
// - one run of consecutive IDAT chunks, then only ancillary chunks and an empty IEND;
// - every chunk name made of letters, every length within 2^31-1 and libpng's chunk limits,
//   every CRC matching (the IEND's too; bytes after IEND are ignored, as libpng ignores them);
// - a zlib stream (deflate, no preset dictionary, a window of at most 32 KiB, which CPNG's
//   reader makes zlib hold whatever the header declares) that ends with the last IDAT byte,
//   inflates to exactly the filtered image and carries a matching Adler-32;
//   its first deflate block passing zlib's checks too (rtn_fast_first_block; later blocks may
//   carry faults libdeflate takes and zlib refuses, docs/libraries.md);
// - every row's filter type 0...4.
#include "CPNG.h"

#include <errno.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <png.h>  // its configuration macros only: nothing here calls libpng
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

// How far past the inflated image compressed bytes may sit (rtn_png_fast_capacity). The
// inflate writes behind the bytes it has read; a stream from any deflate encoder never falls
// further behind than one block's worth, far less than this. A stream that did would read
// bytes the inflate overwrote, fail its structure or Adler-32, and be declined.
#define RTN_FAST_SLACK ((size_t)256 * 1024)

// Scratch of this size or more is mapped rather than malloc'd: freed, it leaves the process at
// once. From malloc it would stay in the calling thread's arena (glibc raises its mmap threshold
// to the size of each mapped block freed, so later blocks of that size come from the arena), and
// a decode worker per arena would each keep one gathered image stream resident.
#define RTN_MAPPED_SCRATCH ((size_t)128 * 1024)

static void *rtn_scratch_take(size_t bytes) {
    if (bytes < RTN_MAPPED_SCRATCH) return malloc(bytes);
    void *mapped = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return mapped == MAP_FAILED ? NULL : mapped;
}

static void rtn_scratch_give(void *scratch, size_t bytes) {
    if (scratch == NULL) return;
    if (bytes < RTN_MAPPED_SCRATCH) free(scratch); else munmap(scratch, bytes);
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the RGB expansion packs pixels little-endian");

static const uint8_t rtn_png_signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

static inline uint32_t rtn_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline int rtn_is_type(const uint8_t *p, const char *name) { return memcmp(p, name, 4) == 0; }

static int rtn_decline(rtn_png_fast_plan *plan, const char *reason) {
    plan->reason = reason;
    return RTN_PNG_DECLINED;
}

int rtn_png_fast_header(const uint8_t *data, size_t size, rtn_png_fast_plan *plan) {
    memset(plan, 0, sizeof *plan);
    if (size < 33 || memcmp(data, rtn_png_signature, 8) != 0) return rtn_decline(plan, "no signature and IHDR");
    const uint8_t *ihdr = data + 8;
    if (rtn_be32(ihdr) != 13 || !rtn_is_type(ihdr + 4, "IHDR")) return rtn_decline(plan, "the first chunk is not a 13-byte IHDR");
    if (libdeflate_crc32(0, ihdr + 4, 17) != rtn_be32(ihdr + 21)) return rtn_decline(plan, "IHDR's CRC does not match");
    const uint8_t *f = ihdr + 8;
    uint32_t width = rtn_be32(f), height = rtn_be32(f + 4);
    int depth = f[8], color = f[9];
    if (width == 0 || height == 0 || width > 0x7fffffffU || height > 0x7fffffffU) {
        return rtn_decline(plan, "width or height out of range");
    }
    if (f[10] != 0 || f[11] != 0) return rtn_decline(plan, "compression or filter method not 0");
    if (f[12] != 0) return rtn_decline(plan, "interlaced");
    if (depth != 8 && !(color == 3 && (depth == 1 || depth == 2 || depth == 4))) {
        return rtn_decline(plan, "bit depth not 8 (nor a 1, 2 or 4-bit palette)");
    }
    int bpp;
    switch (color) {
    case 0: bpp = 1; break;
    case 2: bpp = 3; break;
    case 3: bpp = 1; break;
    case 4: bpp = 2; break;
    case 6: bpp = 4; break;
    default: return rtn_decline(plan, "invalid colour type");
    }
    // 64-bit sizes: width, height < 2^31, so none of these overflow.
    // A row of palette indices under 8 bits packs 8 / depth of them a byte, the last padded.
    size_t rowbytes = depth == 8 ? (size_t)width * (size_t)bpp : ((size_t)width * (size_t)depth + 7) / 8;
    plan->width = width;
    plan->height = height;
    plan->color_type = color;
    plan->bpp = bpp;
    plan->bit_depth = depth;
    plan->row_bytes = rowbytes;
    plan->filtered_bytes = (size_t)height * (rowbytes + 1);
    plan->output_bytes = (size_t)height * (size_t)width * 4;
    plan->inflate_end = bpp == 4 ? plan->output_bytes + height : plan->output_bytes;
    return RTN_PNG_OK;
}

// The chunk rules of a scan, shared by the whole-file scan (rtn_png_fast_scan) and the
// streaming rows (rtn_png_stream_rows_open), which meets the chunks one at a time.
typedef struct {
    size_t chunk_max, idat_max;
    uint32_t ancillary_max, ancillary;
    int seen_plte, seen_trns;
    int idat_state;  // 0 before the image data, 1 in the IDAT run, 2 after it
} rtn_fast_walk;

static void rtn_fast_walk_init(rtn_fast_walk *walk, const rtn_png_fast_plan *plan, const rtn_png_fast_limits *limits) {
    memset(walk, 0, sizeof *walk);
    walk->chunk_max = limits != NULL && limits->chunk_malloc_max != 0 ? limits->chunk_malloc_max : 8000000;
    // libpng lets an IDAT chunk be as long as the filtered image and zlib's overhead; taking
    // no more than the filtered size (or the chunk limit) keeps inside what libpng accepts.
    walk->idat_max = plan->filtered_bytes > walk->chunk_max ? plan->filtered_bytes : walk->chunk_max;
    walk->ancillary_max = limits != NULL ? limits->chunk_cache_max : 0;
}

// A chunk's length and name, before its payload is read: RTN_PNG_OK or RTN_PNG_DECLINED.
static int rtn_fast_walk_header(rtn_png_fast_plan *plan, const rtn_fast_walk *walk, uint32_t length, const uint8_t *type) {
    if (length > 0x7fffffffU) return rtn_decline(plan, "a chunk length over 2^31-1");
    for (int i = 0; i < 4; i++) {
        uint8_t c = type[i] & 0xDF;  // upper case
        if (c < 'A' || c > 'Z') return rtn_decline(plan, "a chunk name that is not four letters");
    }
    if (length > (rtn_is_type(type, "IDAT") ? walk->idat_max : walk->chunk_max)) return rtn_decline(plan, "a chunk over libpng's limit");
    return RTN_PNG_OK;
}

// A chunk whose CRC matched, its payload at `payload` (`offset` in the file): RTN_PNG_OK,
// RTN_PNG_DECLINED, or 1 for IEND (the last chunk read).
static int rtn_fast_walk_chunk(rtn_png_fast_plan *plan, rtn_fast_walk *walk, const uint8_t *type, uint32_t length,
                               const uint8_t *payload, size_t offset) {
    if (rtn_is_type(type, "IDAT")) {
        if (walk->idat_state == 2) return rtn_decline(plan, "IDAT chunks that are not consecutive");
        if (plan->color_type == 3 && !walk->seen_plte) return rtn_decline(plan, "no PLTE before IDAT");
        if (walk->idat_state == 0) plan->first_idat = offset;
        walk->idat_state = 1;
        plan->idat_count += 1;
        plan->idat_bytes += length;
    } else if (rtn_is_type(type, "IEND")) {
        if (walk->idat_state == 0) return rtn_decline(plan, "IEND before IDAT");
        if (length != 0) return rtn_decline(plan, "IEND not empty");
        return 1;
    } else if (rtn_is_type(type, "PLTE")) {
        if (plan->color_type != 3) return rtn_decline(plan, "PLTE in an image without a palette");
        if (walk->seen_plte || walk->seen_trns || walk->idat_state != 0) return rtn_decline(plan, "PLTE out of place");
        if (length == 0 || length % 3 != 0 || length > 768) return rtn_decline(plan, "PLTE's length");
        // libpng keeps only the colours the depth can index, and then measures tRNS
        // against those: such a file is left to it.
        if (length / 3 > (1U << plan->bit_depth)) return rtn_decline(plan, "PLTE longer than the bit depth indexes");
        walk->seen_plte = 1;
        plan->plte_offset = offset;
        plan->plte_length = length;
    } else if (rtn_is_type(type, "tRNS")) {
        if (walk->seen_trns || walk->idat_state != 0) return rtn_decline(plan, "tRNS out of place");
        const uint8_t *t = payload;
        switch (plan->color_type) {
        case 3:
            if (!walk->seen_plte || length == 0 || length > plan->plte_length / 3) return rtn_decline(plan, "tRNS's length");
            break;
        case 0:
            if (length != 2 || t[0] != 0) return rtn_decline(plan, "a gray tRNS that is not one 8-bit key");
            break;
        case 2:
            if (length != 6 || t[0] != 0 || t[2] != 0 || t[4] != 0) return rtn_decline(plan, "an RGB tRNS that is not one 8-bit key");
            break;
        default:
            return rtn_decline(plan, "tRNS in an image with alpha");
        }
        walk->seen_trns = 1;
        plan->trns_offset = offset;
        plan->trns_length = length;
    } else if ((type[0] & 0x20) == 0) {
        return rtn_decline(plan, "a critical chunk other than IHDR, PLTE, IDAT and IEND");
    } else {
        walk->ancillary += 1;
        if (walk->ancillary_max != 0 && walk->ancillary > walk->ancillary_max) return rtn_decline(plan, "more ancillary chunks than the limit");
        if (walk->idat_state == 1) walk->idat_state = 2;
    }
    return RTN_PNG_OK;
}

// The zlib header at the image data's start (`z`, `available` bytes of it): deflate, no preset
// dictionary, a window of at most 32 KiB. libdeflate takes any distance up to 32 KiB back
// whatever window the header declares; so does zlib as CPNG's reader drives it
// (PNG_MAXIMUM_INFLATE_WINDOW), and as the streaming rows drive it (a 32 KiB window). Without
// that option zlib would refuse a distance past the declared window, so a smaller window is
// then taken only when the whole image fits in it.
static int rtn_fast_zlib_header(rtn_png_fast_plan *plan, const uint8_t *z, size_t available) {
    if (available < 2) return rtn_decline(plan, "the first IDAT holds less than the zlib header");
    unsigned cmf = z[0], flg = z[1];
    if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 || ((cmf << 8) | flg) % 31 != 0 || (flg & 0x20) != 0) {
        return rtn_decline(plan, "the zlib header is not one libpng reads alike");
    }
#if !(defined(PNG_SET_OPTION_SUPPORTED) && defined(PNG_MAXIMUM_INFLATE_WINDOW))
    if ((cmf >> 4) < 7 && plan->filtered_bytes > ((size_t)1 << ((cmf >> 4) + 8))) {
        return rtn_decline(plan, "a zlib window smaller than the image");
    }
#endif
    return RTN_PNG_OK;
}

int rtn_png_fast_scan(const uint8_t *data, size_t size, const rtn_png_fast_limits *limits,
                      rtn_png_fast_plan *plan) {
    int status = rtn_png_fast_header(data, size, plan);
    if (status != RTN_PNG_OK) return status;
    rtn_fast_walk walk;
    rtn_fast_walk_init(&walk, plan, limits);
    size_t pos = 33;
    for (;;) {
        if (size - pos < 12) return rtn_decline(plan, "the file ends before IEND");
        const uint8_t *chunk = data + pos;
        uint32_t length = rtn_be32(chunk);
        const uint8_t *type = chunk + 4;
        if (length <= 0x7fffffffU && length > size - pos - 12) return rtn_decline(plan, "the file ends inside a chunk");
        if (rtn_fast_walk_header(plan, &walk, length, type) != RTN_PNG_OK) return RTN_PNG_DECLINED;
        if (libdeflate_crc32(0, type, (size_t)length + 4) != rtn_be32(chunk + 8 + length)) {
            return rtn_decline(plan, "a chunk's CRC does not match");
        }
        status = rtn_fast_walk_chunk(plan, &walk, type, length, chunk + 8, pos + 8);
        if (status == 1) break;
        if (status != RTN_PNG_OK) return status;
        pos += 12 + (size_t)length;
    }
    return rtn_fast_zlib_header(plan, data + plan->first_idat, rtn_be32(data + plan->first_idat - 8));
}

size_t rtn_png_fast_capacity(const rtn_png_fast_plan *plan, size_t staged) {
    if (staged > plan->inflate_end + RTN_FAST_SLACK) return 0;
    return plan->inflate_end + (staged < RTN_FAST_SLACK ? staged : RTN_FAST_SLACK);
}

const char *rtn_png_fast_libdeflate_version(void) { return LIBDEFLATE_VERSION_STRING; }

// Gathers the IDAT payloads into one stream ending at `end` (idat_bytes long): copied forward
// from memory outside the buffer, or moved backward, last chunk first, when the file lies in
// the buffer's tail (each payload then moves right, never over one not yet moved).
static int rtn_fast_gather(const rtn_png_fast_plan *plan, const uint8_t *data, uint8_t *end, int in_place) {
    size_t count = plan->idat_count;
    size_t *offsets = malloc(count * sizeof *offsets);
    if (offsets == NULL) return -1;
    size_t pos = plan->first_idat - 8;
    for (size_t i = 0; i < count; i++) {
        offsets[i] = pos;
        pos += 12 + (size_t)rtn_be32(data + pos);
    }
    if (in_place) {
        uint8_t *to = end;
        for (size_t i = count; i-- > 0;) {
            size_t length = rtn_be32(data + offsets[i]);
            to -= length;
            memmove(to, data + offsets[i] + 8, length);
        }
    } else {
        uint8_t *to = end - plan->idat_bytes;
        for (size_t i = 0; i < count; i++) {
            size_t length = rtn_be32(data + offsets[i]);
            memcpy(to, data + offsets[i] + 8, length);
            to += length;
        }
    }
    free(offsets);
    return 0;
}

// What each byte value of a palette or gray row stands for in RGBA8, as libpng expands it:
// a palette index past PLTE is black, alpha from tRNS or opaque; a gray level equal to the
// tRNS key is transparent.
static void rtn_fast_table(const rtn_png_fast_plan *plan, const uint8_t *data, uint32_t table[256]) {
    const uint8_t *trns = plan->trns_length ? data + plan->trns_offset : NULL;
    for (unsigned i = 0; i < 256; i++) {
        uint8_t rgba[4] = {(uint8_t)i, (uint8_t)i, (uint8_t)i, 0xff};
        if (plan->color_type == 3) {
            rgba[0] = rgba[1] = rgba[2] = 0;
            if (i < plan->plte_length / 3) memcpy(rgba, data + plan->plte_offset + 3 * i, 3);
            if (trns != NULL && i < plan->trns_length) rgba[3] = trns[i];
        } else if (trns != NULL && i == trns[1]) {
            rgba[3] = 0;
        }
        memcpy(&table[i], rgba, 4);
    }
}

// For palette indices packed 1, 2 or 4 bits each (the first in the high bits of its byte):
// the 8 / depth indices each byte value holds, in order, a byte each, in 8 bytes.
static void rtn_fast_unpack_table(int depth, uint64_t table[256]) {
    unsigned per_byte = 8U / (unsigned)depth, mask = (1U << depth) - 1;
    for (unsigned value = 0; value < 256; value++) {
        uint8_t indices[8] = {0};
        for (unsigned k = 1; k <= per_byte; k++) indices[k - 1] = (uint8_t)((value >> (8U - (unsigned)depth * k)) & mask);
        memcpy(&table[value], indices, 8);
    }
}

// A row of `width` packed indices a byte each into `out`: a table load and an 8-byte store a
// packed byte, so up to 7 bytes past out + width are written (scratch).
static void rtn_fast_unpack(const uint8_t *row, size_t width, int depth, const uint64_t *table, uint8_t *out) {
    size_t per_byte = 8 / (size_t)depth, bytes = (width + per_byte - 1) / per_byte;
    for (size_t i = 0; i < bytes; i++) memcpy(out + i * per_byte, &table[row[i]], 8);
}

// Where rows of packed indices are unpacked: the table of rtn_fast_unpack_table and a row of
// width + 8 bytes or more. (The row API, which takes 8-bit images only, passes none.)
typedef struct {
    uint64_t table[256];
    uint8_t *row;
} rtn_fast_unpacker;

// One unfiltered row of `width` pixels (`bpp` bytes each, or packed indices under 8 bits,
// unpacked through `unpacker` first) to RGBA8.
static void rtn_fast_expand(const rtn_png_fast_plan *plan, const uint32_t *table, const uint8_t *key,
                            const uint8_t *row, const rtn_fast_unpacker *unpacker, uint8_t *out) {
    size_t width = plan->width;
    if (plan->bit_depth < 8) {
        rtn_fast_unpack(row, width, plan->bit_depth, unpacker->table, unpacker->row);
        row = unpacker->row;
    }
    switch (plan->color_type) {
    case 6:
        memcpy(out, row, width * 4);
        break;
    case 0:
    case 3:
        rtn_png_expand_indexed(row, width, table, out);
        break;
    case 4:
        for (size_t x = 0; x < width; x++) {
            uint8_t g = row[2 * x];
            uint8_t pixel[4] = {g, g, g, row[2 * x + 1]};
            memcpy(out + 4 * x, pixel, 4);
        }
        break;
    default:  // 2
        if (key != NULL) {
            for (size_t x = 0; x < width; x++) {
                const uint8_t *p = row + 3 * x;
                uint8_t alpha = p[0] == key[0] && p[1] == key[1] && p[2] == key[2] ? 0 : 0xff;
                uint8_t pixel[4] = {p[0], p[1], p[2], alpha};
                memcpy(out + 4 * x, pixel, 4);
            }
            break;
        }
        // Four pixels a step from two 8-byte loads (`row` has 16 bytes to spare past its end).
        const uint64_t mask = 0xffffff, opaque = 0xff000000ff000000ull;
        size_t x = 0;
        for (; x + 4 <= width; x += 4) {
            uint64_t a, b;
            memcpy(&a, row + 3 * x, 8);
            memcpy(&b, row + 3 * x + 6, 8);
            uint64_t first = (a & mask) | ((a >> 24) & mask) << 32 | opaque;
            uint64_t second = (b & mask) | ((b >> 24) & mask) << 32 | opaque;
            memcpy(out + 4 * x, &first, 8);
            memcpy(out + 4 * x + 8, &second, 8);
        }
        for (; x < width; x++) {
            const uint8_t *p = row + 3 * x;
            uint8_t pixel[4] = {p[0], p[1], p[2], 0xff};
            memcpy(out + 4 * x, pixel, 4);
        }
        break;
    }
}

// The whole pages of the buffer past the bitmap (the row bytes and staged compressed bytes the
// decode used) handed back to the kernel: they would otherwise stay resident as long as the
// bitmap. Their contents are not needed again; the allocator's own data lies outside them.
static void rtn_fast_release_tail(uint8_t *buffer, size_t from, size_t capacity) {
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return;
    uintptr_t mask = (uintptr_t)page - 1;
    uintptr_t start = ((uintptr_t)(buffer + from) + mask) & ~mask;
    uintptr_t end = (uintptr_t)(buffer + capacity) & ~mask;
    if (end > start) madvise((void *)start, end - start, MADV_DONTNEED);
}

// The key of an RGB image's tRNS, when it has one: into key[0...2], returning 1.
static int rtn_fast_key(const rtn_png_fast_plan *plan, const uint8_t *data, uint8_t key[3]) {
    if (plan->color_type != 2 || plan->trns_length != 6) return 0;
    const uint8_t *t = data + plan->trns_offset;
    key[0] = t[1];
    key[1] = t[3];
    key[2] = t[5];
    return 1;
}

// Declines a stream whose first deflate block libdeflate would take and zlib would not, before
// anything is inflated. A dynamic first block: zlib reads the zlib header and that block's
// header only (Z_TREES, at most 4 KiB of input), so a header zlib rejects is declined
// (libdeflate ignores, for one, a code-length repeat that runs past the last code: zlib's
// "invalid bit length repeat"); a fixed cost per file, nothing per byte. A fixed-Huffman first
// block (small streams: encoders choose fixed codes for little data): zlib inflates the whole
// stream into a discarded 32 KiB window first, since libdeflate decodes the invalid
// literal/length symbols 286 and 287 there as length 258 where zlib says "invalid
// literal/length code"; about one zlib inflate more for such a file. Blocks after the first
// are not checked (docs/libraries.md).
// zlib reads the zlib header and the dynamic block header after it from the first bytes of
// `stream` (at most 4 KiB): its last return code (Z_MEM_ERROR when it could not start), and in
// `*whole` whether it read the block header to its end.
static int rtn_zlib_block_header(const uint8_t *stream, size_t size, int *whole) {
    z_stream z;
    memset(&z, 0, sizeof z);
    *whole = 0;
    if (inflateInit2(&z, 15) != Z_OK) return Z_MEM_ERROR;
    uint8_t out[1];
    z.next_in = (Bytef *)stream;
    z.avail_in = (uInt)(size < 4096 ? size : 4096);
    z.next_out = out;
    z.avail_out = sizeof out;
    int rc = Z_OK;
    for (int call = 0; call < 3 && rc == Z_OK && !(z.data_type & 256); call++) rc = inflate(&z, Z_TREES);
    *whole = rc == Z_OK && (z.data_type & 256);
    inflateEnd(&z);
    return rc;
}

static int rtn_fast_first_block(rtn_png_fast_plan *plan, const uint8_t *stream, size_t size) {
    if (size < 3) return 0;  // libdeflate fails it
    int type = (stream[2] >> 1) & 3;
    if (type != 1 && type != 2) return 0;
    int rc = Z_OK;
    if (type == 2) {
        int whole;
        rc = rtn_zlib_block_header(stream, size, &whole);
    } else {
        z_stream z;
        memset(&z, 0, sizeof z);
        uint8_t *window = malloc(32768);
        if (window == NULL || inflateInit2(&z, 15) != Z_OK) {
            free(window);
            rtn_decline(plan, "out of memory");
            return -1;
        }
        z.next_in = (Bytef *)stream;
        size_t left = size;
        while (rc == Z_OK) {
            if (z.avail_in == 0 && left > 0) {
                z.avail_in = (uInt)(left < (1U << 30) ? left : (1U << 30));
                left -= z.avail_in;
            }
            z.next_out = window;
            z.avail_out = 32768;
            rc = inflate(&z, Z_NO_FLUSH);
            if (rc == Z_BUF_ERROR && left > 0) rc = Z_OK;
        }
        inflateEnd(&z);
        free(window);
    }
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR) {
        rtn_decline(plan, "zlib rejects the deflate stream");
        return -1;
    }
    return 0;
}

// Gathers the image data if it is in several IDATs and inflates it to end at
// buffer + plan->inflate_end, exactly filtered_bytes long. Returns the filtered image, or NULL
// with plan->reason set. `data` may be overwritten from here on.
static uint8_t *rtn_fast_inflate(rtn_png_fast_plan *plan, const uint8_t *data, uint8_t *buffer, size_t capacity) {
    int in_place = data >= buffer && data < buffer + capacity;
    // Several IDATs from memory outside the buffer are gathered in its tail when the caller
    // left room for them there (rtn_png_fast_capacity), else in memory of their own, freed
    // after the inflate (so a bitmap is allocated at its own size, as libpng's path does).
    int staged = plan->idat_count > 1 &&
                 (in_place || (capacity >= plan->idat_bytes &&
                               capacity - plan->inflate_end >= (plan->idat_bytes < RTN_FAST_SLACK ? plan->idat_bytes : RTN_FAST_SLACK)));
    if (plan->idat_count == 0 || capacity < plan->inflate_end || (staged && capacity < plan->idat_bytes)) {
        rtn_decline(plan, "the buffer is too small for this plan");
        return NULL;
    }
    const uint8_t *stream = data + plan->first_idat;
    uint8_t *gathered = NULL;
    if (plan->idat_count > 1) {
        uint8_t *end = buffer + capacity;
        if (!staged) {
            gathered = rtn_scratch_take(plan->idat_bytes);
            end = gathered != NULL ? gathered + plan->idat_bytes : NULL;
        }
        if (end == NULL || rtn_fast_gather(plan, data, end, in_place) != 0) {
            rtn_scratch_give(gathered, plan->idat_bytes);
            rtn_decline(plan, "out of memory");
            return NULL;
        }
        stream = end - plan->idat_bytes;
    }
    if (rtn_fast_first_block(plan, stream, plan->idat_bytes) != 0) {
        rtn_scratch_give(gathered, plan->idat_bytes);
        return NULL;
    }
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    if (inflater == NULL) {
        rtn_scratch_give(gathered, plan->idat_bytes);
        rtn_decline(plan, "out of memory");
        return NULL;
    }
    uint8_t *filtered = buffer + plan->inflate_end - plan->filtered_bytes;
    size_t used_in = 0, used_out = 0;
    enum libdeflate_result result = libdeflate_zlib_decompress_ex(inflater, stream, plan->idat_bytes, filtered,
                                                                  plan->filtered_bytes, &used_in, &used_out);
    libdeflate_free_decompressor(inflater);
    rtn_scratch_give(gathered, plan->idat_bytes);
    if (result != LIBDEFLATE_SUCCESS) {
        rtn_decline(plan, "libdeflate could not inflate the image data");
        return NULL;
    }
    if (used_out != plan->filtered_bytes) {
        rtn_decline(plan, "the image data inflates to less than the image");
        return NULL;
    }
    if (used_in != plan->idat_bytes) {
        rtn_decline(plan, "bytes after the zlib stream");
        return NULL;
    }
    return filtered;
}

int rtn_png_fast_decode(rtn_png_fast_plan *plan, const uint8_t *data, uint8_t *buffer, size_t capacity) {
    // The tables first: the inflate may overwrite PLTE and tRNS when the file lies in the buffer.
    uint32_t table[256];
    uint8_t key[3];
    if (plan->color_type == 0 || plan->color_type == 3) rtn_fast_table(plan, data, table);
    int keyed = rtn_fast_key(plan, data, key);
    uint8_t *filtered = rtn_fast_inflate(plan, data, buffer, capacity);
    if (filtered == NULL) return RTN_PNG_DECLINED;

    size_t width = plan->width, height = plan->height, bpp = (size_t)plan->bpp;
    size_t rowbytes = plan->row_bytes, out_row = width * 4;
    if (bpp == 4) {
        // In place from the top: row y moves y + 1 bytes toward the start. Two rows at a time
        // (rtn_png_unfilter_rows), the second into `spare` and then to its place, since in
        // place it would overwrite the end of the first row's input before that is read.
        uint8_t *zero = calloc(2, rowbytes);
        if (zero == NULL) return rtn_decline(plan, "out of memory");
        uint8_t *spare = zero + rowbytes;
        for (size_t y = 0; y < height;) {
            const uint8_t *in = filtered + y * (rowbytes + 1);
            uint8_t *out = buffer + y * out_row;
            const uint8_t *above = y == 0 ? zero : out - out_row;
            int status;
            if (y + 1 < height) {
                const uint8_t *next = in + rowbytes + 1;
                status = rtn_png_unfilter_rows(in[0], in + 1, next[0], next + 1, above, rowbytes, 4, out, spare);
                if (status == 0) memcpy(out + out_row, spare, rowbytes);
                y += 2;
            } else {
                status = rtn_png_unfilter_row(in[0], in + 1, above, rowbytes, 4, out);
                y += 1;
            }
            if (status != 0) {
                free(zero);
                return rtn_decline(plan, "a row filter type above 4");
            }
        }
        free(zero);
        rtn_fast_release_tail(buffer, plan->output_bytes, capacity);
        return RTN_PNG_OK;
    }
    // Fewer bytes a pixel: the filtered rows end where the output ends; each pair of rows is
    // unfiltered into `first` and `second` (the row above in `previous`) and expanded to their
    // places, which end before the next filtered row begins.
    // (Rows of packed indices are unpacked into the unpacker's row first: width + 16 bytes.)
    uint8_t *rows = calloc(1, 3 * (rowbytes + 16) + (plan->bit_depth < 8 ? width + 16 : 0));
    if (rows == NULL) return rtn_decline(plan, "out of memory");
    uint8_t *previous = rows, *first = rows + rowbytes + 16, *second = rows + 2 * (rowbytes + 16);
    rtn_fast_unpacker unpacker = {.row = rows + 3 * (rowbytes + 16)};
    if (plan->bit_depth < 8) rtn_fast_unpack_table(plan->bit_depth, unpacker.table);
    for (size_t y = 0; y < height;) {
        const uint8_t *in = filtered + y * (rowbytes + 1);
        int pair = y + 1 < height;
        int status = pair ? rtn_png_unfilter_rows(in[0], in + 1, in[rowbytes + 1], in + rowbytes + 2, previous, rowbytes,
                                                  bpp, first, second)
                          : rtn_png_unfilter_row(in[0], in + 1, previous, rowbytes, bpp, first);
        if (status != 0) {
            free(rows);
            return rtn_decline(plan, "a row filter type above 4");
        }
        rtn_fast_expand(plan, table, keyed ? key : NULL, first, &unpacker, buffer + y * out_row);
        if (pair) rtn_fast_expand(plan, table, keyed ? key : NULL, second, &unpacker, buffer + (y + 1) * out_row);
        uint8_t *last = pair ? second : first;
        if (pair) second = previous;
        else first = previous;
        previous = last;
        y += pair ? 2 : 1;
    }
    free(rows);
    rtn_fast_release_tail(buffer, plan->output_bytes, capacity);
    return RTN_PNG_OK;
}

// --- rows one batch at a time, for the thumbnailer ----------------------------------------

// One unfiltered row into the form the thumbnailer asked for (`pixel_bytes` a pixel): RGBA8
// (rtn_fast_expand), or for indices packed under 8 bits, a byte an index (unpacked into the
// unpacker's row, which has room for rtn_fast_unpack's spare bytes, then copied).
static void rtn_fast_hand_row(const rtn_png_fast_plan *plan, const uint32_t *table, const uint8_t *key,
                              const rtn_fast_unpacker *unpacker, int pixel_bytes, const uint8_t *row, uint8_t *out) {
    if (pixel_bytes == 1 && plan->bit_depth < 8) {
        rtn_fast_unpack(row, plan->width, plan->bit_depth, unpacker->table, unpacker->row);
        memcpy(out, unpacker->row, plan->width);
        return;
    }
    rtn_fast_expand(plan, table, key, row, unpacker, out);
}

// Whether rows of `plan` can be handed `pixel_bytes` a pixel (with `rgba` for a table):
// RGBA8 always; a byte an index for palettes (packed ones too) and gray without a key; RGB8
// for RGB without a key. Rows as stored, unfiltered straight into their places, when the
// form is the file's own (8-bit samples).
static int rtn_fast_rows_form(const rtn_png_fast_plan *plan, int pixel_bytes, const uint8_t *rgba) {
    int indexed = plan->color_type == 3 || (plan->color_type == 0 && plan->trns_length == 0);
    int rgb = plan->color_type == 2 && plan->trns_length == 0;
    return pixel_bytes == 4 || (pixel_bytes == 1 && indexed && rgba != NULL) || (pixel_bytes == 3 && rgb);
}

static int rtn_fast_rows_as_stored(const rtn_png_fast_plan *plan, int pixel_bytes) {
    return plan->bit_depth == 8 && pixel_bytes == plan->bpp;
}

// A row of packed indices' unpacker for `plan` (its table, and a row of width + 16 bytes), or
// nothing for 8-bit rows: 0, or -1 out of memory.
static int rtn_fast_unpacker_open(const rtn_png_fast_plan *plan, rtn_fast_unpacker *unpacker) {
    unpacker->row = NULL;
    if (plan->bit_depth == 8) return 0;
    unpacker->row = malloc((size_t)plan->width + 16);
    if (unpacker->row == NULL) return -1;
    rtn_fast_unpack_table(plan->bit_depth, unpacker->table);
    return 0;
}


struct rtn_png_fast_rows {
    rtn_png_fast_plan plan;
    const uint8_t *filtered;
    uint8_t *previous, *current;
    uint32_t next_row;
    int pixel_bytes;
    int keyed;
    uint8_t key[3];
    uint32_t table[256];
    rtn_fast_unpacker unpacker;  // for indices packed under 8 bits
};

void rtn_png_fast_plan_for_rows(rtn_png_fast_plan *plan) { plan->inflate_end = plan->filtered_bytes; }

rtn_png_fast_rows *rtn_png_fast_rows_open(rtn_png_fast_plan *plan, const uint8_t *data, uint8_t *buffer,
                                          size_t capacity, int pixel_bytes, uint8_t *rgba) {
    if (plan->inflate_end != plan->filtered_bytes || !rtn_fast_rows_form(plan, pixel_bytes, rgba)) {
        rtn_decline(plan, "rows asked for in a form this image does not have");
        return NULL;
    }
    struct rtn_png_fast_rows *rows = calloc(1, sizeof *rows);
    size_t rowbytes = plan->row_bytes;
    uint8_t *scratch = rows != NULL ? calloc(2, rowbytes + 16) : NULL;
    if (scratch != NULL && rtn_fast_unpacker_open(plan, &rows->unpacker) != 0) {
        free(scratch);
        scratch = NULL;
    }
    if (scratch == NULL) {
        free(rows);
        rtn_decline(plan, "out of memory");
        return NULL;
    }
    rows->previous = scratch;
    rows->current = scratch + rowbytes + 16;
    rows->pixel_bytes = pixel_bytes;
    if (plan->color_type == 0 || plan->color_type == 3) rtn_fast_table(plan, data, rows->table);
    if (pixel_bytes == 1) memcpy(rgba, rows->table, sizeof rows->table);
    rows->keyed = rtn_fast_key(plan, data, rows->key);
    uint8_t *filtered = rtn_fast_inflate(plan, data, buffer, capacity);
    // Every row's filter type checked now, so reading rows cannot fail half-way.
    for (size_t y = 0; filtered != NULL && y < plan->height; y++) {
        if (filtered[y * (rowbytes + 1)] > 4) {
            rtn_decline(plan, "a row filter type above 4");
            filtered = NULL;
        }
    }
    if (filtered == NULL) {
        rtn_png_fast_rows_close(rows);
        return NULL;
    }
    rows->filtered = filtered;
    rows->plan = *plan;
    return rows;
}

int rtn_png_fast_rows_read(rtn_png_fast_rows *rows, uint8_t *dst, size_t stride, uint32_t count) {
    const rtn_png_fast_plan *plan = &rows->plan;
    if (count > plan->height - rows->next_row) return RTN_PNG_USAGE;
    size_t rowbytes = plan->row_bytes;
    if (rtn_fast_rows_as_stored(plan, rows->pixel_bytes)) {
        // Rows as stored: each is unfiltered straight into its place, the row above read from
        // the batch (from `previous`, the last row of the batch before, for the first), so
        // every byte is written once and read back by the thumbnailer while it is in cache.
        for (uint32_t i = 0; i < count;) {
            const uint8_t *in = rows->filtered + (size_t)rows->next_row * (rowbytes + 1);
            uint8_t *out = dst + (size_t)i * stride;
            const uint8_t *above = i == 0 ? rows->previous : out - stride;
            if (i + 1 < count) {  // two rows side by side (rtn_png_unfilter_rows)
                rtn_png_unfilter_rows(in[0], in + 1, in[rowbytes + 1], in + rowbytes + 2, above, rowbytes,
                                      (size_t)plan->bpp, out, out + stride);
                i += 2;
                rows->next_row += 2;
            } else {
                rtn_png_unfilter_row(in[0], in + 1, above, rowbytes, (size_t)plan->bpp, out);
                i += 1;
                rows->next_row += 1;
            }
        }
        if (count > 0) memcpy(rows->previous, dst + (size_t)(count - 1) * stride, rowbytes);
        return RTN_PNG_OK;
    }
    for (uint32_t i = 0; i < count; i++, rows->next_row++) {
        const uint8_t *in = rows->filtered + (size_t)rows->next_row * (rowbytes + 1);
        rtn_png_unfilter_row(in[0], in + 1, rows->previous, rowbytes, (size_t)plan->bpp, rows->current);
        rtn_fast_hand_row(plan, rows->table, rows->keyed ? rows->key : NULL, &rows->unpacker, rows->pixel_bytes, rows->current,
                          dst + (size_t)i * stride);
        uint8_t *swap = rows->previous;
        rows->previous = rows->current;
        rows->current = swap;
    }
    return RTN_PNG_OK;
}

void rtn_png_fast_rows_close(rtn_png_fast_rows *rows) {
    if (rows == NULL) return;
    free(rows->previous < rows->current ? rows->previous : rows->current);
    free(rows->unpacker.row);
    free(rows);
}

// --- rows streamed through zlib, for images over the whole-inflate allowance ---------------

// Compressed bytes read from a file a piece at a time.
#define RTN_STREAM_INPUT ((size_t)64 * 1024)

struct rtn_png_stream_rows {
    rtn_png_fast_plan plan;
    rtn_fast_walk walk;
    // The source: `data` (`size` bytes) in memory, or the file `fd` read with pread.
    const uint8_t *data;
    size_t size;
    int fd;
    size_t pos;            // the next byte of the file to read
    uint8_t *input;        // RTN_STREAM_INPUT bytes, for a file
    size_t input_pos, input_length;
    // The inflater: ISA-L's (`isal`) where the first deflate block allows it
    // (rtn_stream_first_block), else zlib's (`z`).
    z_stream z;
    int z_open;
    struct inflate_state *isal;
    int isal_starved;      // ISA-L's last call took all it had and gave nothing: feed it
    uint32_t idat_left;    // payload bytes of the current IDAT not yet handed to the inflater
    uint32_t idat_crc;     // its CRC so far
    int stream_end;        // the inflater reached the stream's end
    uint8_t *filtered;     // two filtered rows: each its filter type and row_bytes bytes
    uint8_t *previous, *current, *second;
    uint32_t next_row;
    int pixel_bytes;
    int keyed;
    uint8_t key[3];
    uint8_t plte_trns[768 + 256];  // PLTE's payload, then tRNS's, for rtn_fast_table
    uint32_t table[256];
    rtn_fast_unpacker unpacker;    // for indices packed under 8 bits
    // A helper thread (rtn_png_stream_rows_pipeline) that owns everything above the rows
    // (the source, the chunks, zlib) until it is joined: it inflates filtered rows into `ring`
    // while the caller unfilters them. `lock` guards `produced`, `consumed`, `helper_done`,
    // `helper_status` and `stop`; `changed` is signalled whenever one of them changes. A
    // pthread mutex and condition variable, since the helper is C's and waits for room.
    int threaded;          // the helper was started and not yet joined
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int sync_ready;        // lock and changed are initialised
    uint8_t *ring;         // `slots` filtered rows, each its filter type and row_bytes bytes
    uint32_t slots;
    uint32_t produced;     // rows inflated into the ring so far
    uint32_t consumed;     // rows the caller has unfiltered and handed back (their slots are free)
    uint32_t consumed_told;  // the caller's own copy of `consumed` as it last set it (no lock)
    int helper_done;       // the helper has stopped: every row inflated, stopped, or declined
    int helper_status;     // RTN_PNG_OK, or RTN_PNG_DECLINED with plan.reason set by the helper
    int stop;              // the caller asks the helper to stop
    int declined;          // the caller's side declined (read and finish then say so)
};

// Up to `want` bytes of the file from `pos` on, handed back through `bytes` (in memory where
// the file is, else in `input`); 0 at the file's end. A pread of 64 KiB when `input` is spent.
static size_t rtn_stream_take(rtn_png_stream_rows *s, size_t want, const uint8_t **bytes) {
    if (s->fd < 0) {
        size_t left = s->pos < s->size ? s->size - s->pos : 0;
        size_t n = want < left ? want : left;
        *bytes = s->data + s->pos;
        s->pos += n;
        return n;
    }
    // `input` holds the file from `input_pos` on, `input_length` bytes: refilled, a whole
    // buffer at a time, once `pos` leaves it (zlib has handed back every byte it was given by
    // then: it is fed only when it has none left).
    if (s->pos < s->input_pos || s->pos >= s->input_pos + s->input_length) {
        ssize_t got;
        do got = pread(s->fd, s->input, RTN_STREAM_INPUT, (off_t)s->pos);
        while (got < 0 && errno == EINTR);
        s->input_pos = s->pos;
        s->input_length = got > 0 ? (size_t)got : 0;
        if (got <= 0) return 0;
    }
    size_t left = s->input_pos + s->input_length - s->pos;
    size_t n = want < left ? want : left;
    *bytes = s->input + (s->pos - s->input_pos);
    s->pos += n;
    return n;
}

// Exactly `count` bytes (at most RTN_STREAM_INPUT) into `out`: 0, or -1 at the file's end.
static int rtn_stream_exact(rtn_png_stream_rows *s, uint8_t *out, size_t count) {
    while (count > 0) {
        const uint8_t *bytes;
        size_t n = rtn_stream_take(s, count, &bytes);
        if (n == 0) return -1;
        memcpy(out, bytes, n);
        out += n;
        count -= n;
    }
    return 0;
}

// Reads the next chunk's length and name and checks them: RTN_PNG_OK or RTN_PNG_DECLINED.
static int rtn_stream_chunk_header(rtn_png_stream_rows *s, uint32_t *length, uint8_t type[4]) {
    uint8_t head[8];
    if (rtn_stream_exact(s, head, 8) != 0) return rtn_decline(&s->plan, "the file ends before IEND");
    *length = rtn_be32(head);
    memcpy(type, head + 4, 4);
    return rtn_fast_walk_header(&s->plan, &s->walk, *length, type);
}

// Reads the 4-byte CRC ending a chunk and compares it with `crc`.
static int rtn_stream_chunk_crc(rtn_png_stream_rows *s, uint32_t crc) {
    uint8_t stored[4];
    if (rtn_stream_exact(s, stored, 4) != 0) return rtn_decline(&s->plan, "the file ends inside a chunk");
    if (rtn_be32(stored) != crc) return rtn_decline(&s->plan, "a chunk's CRC does not match");
    return RTN_PNG_OK;
}

// A chunk other than IDAT whose header was read: its payload read (the first bytes kept in
// `keep`, `keep_size` of them at most) and CRC checked, then the walk's rules. RTN_PNG_OK,
// RTN_PNG_DECLINED, or 1 for IEND.
static int rtn_stream_chunk(rtn_png_stream_rows *s, uint32_t length, const uint8_t type[4], uint8_t *keep, size_t keep_size) {
    size_t offset = s->pos;
    uint32_t crc = libdeflate_crc32(0, type, 4);
    size_t left = length, kept = 0;
    while (left > 0) {
        const uint8_t *bytes;
        size_t n = rtn_stream_take(s, left, &bytes);
        if (n == 0) return rtn_decline(&s->plan, "the file ends inside a chunk");
        crc = libdeflate_crc32(crc, bytes, n);
        if (kept < keep_size) {
            size_t k = keep_size - kept < n ? keep_size - kept : n;
            memcpy(keep + kept, bytes, k);
            kept += k;
        }
        left -= n;
    }
    if (rtn_stream_chunk_crc(s, crc) != RTN_PNG_OK) return RTN_PNG_DECLINED;
    return rtn_fast_walk_chunk(&s->plan, &s->walk, type, length, keep, offset);
}

// Hands zlib the next compressed bytes, reading the next IDAT's header (and the last one's
// CRC) when the current one is spent: RTN_PNG_OK, or RTN_PNG_DECLINED when the IDAT run ends
// (the zlib stream is cut short) or a chunk is wrong.
static int rtn_stream_feed(rtn_png_stream_rows *s) {
    while (s->idat_left == 0) {
        if (rtn_stream_chunk_crc(s, s->idat_crc) != RTN_PNG_OK) return RTN_PNG_DECLINED;
        uint32_t length;
        uint8_t type[4];
        if (rtn_stream_chunk_header(s, &length, type) != RTN_PNG_OK) return RTN_PNG_DECLINED;
        if (!rtn_is_type(type, "IDAT")) return rtn_decline(&s->plan, "the image data ends before the image");
        if (rtn_fast_walk_chunk(&s->plan, &s->walk, type, length, NULL, s->pos) != RTN_PNG_OK) return RTN_PNG_DECLINED;
        s->idat_left = length;
        s->idat_crc = libdeflate_crc32(0, type, 4);
    }
    const uint8_t *bytes;
    size_t n = rtn_stream_take(s, s->idat_left, &bytes);
    if (n == 0) return rtn_decline(&s->plan, "the file ends inside a chunk");
    s->idat_crc = libdeflate_crc32(s->idat_crc, bytes, n);
    s->idat_left -= (uint32_t)n;
    if (s->isal != NULL) {
        s->isal->next_in = (uint8_t *)bytes;
        s->isal->avail_in = (uint32_t)n;
    } else {
        s->z.next_in = (Bytef *)bytes;
        s->z.avail_in = (uInt)n;
    }
    return RTN_PNG_OK;
}

// Compressed bytes handed to the inflater and not yet taken.
static uint32_t rtn_stream_avail_in(const rtn_png_stream_rows *s) {
    return s->isal != NULL ? s->isal->avail_in : s->z.avail_in;
}

// One call of ISA-L writing at most `count` bytes (at most 1 GiB) at `out`, `*written` of them:
// fed the next IDAT bytes first when the call before took every byte it had and gave nothing
// (ISA-L keeps up to 8 bytes in its own bit buffer, so an empty input is not yet a hungry
// inflater). RTN_PNG_OK, or RTN_PNG_DECLINED (an inflate error, a wrong Adler-32, the IDATs
// ending, a call that takes and gives nothing).
static int rtn_stream_isal_call(rtn_png_stream_rows *s, uint8_t *out, size_t count, size_t *written) {
    struct inflate_state *st = s->isal;
    if (st->avail_in == 0 && s->isal_starved) {
        if (rtn_stream_feed(s) != RTN_PNG_OK) return RTN_PNG_DECLINED;
        s->isal_starved = 0;
    }
    st->next_out = out;
    st->avail_out = (uint32_t)count;
    uint32_t in_before = st->avail_in;
    if (isal_inflate(st) != ISAL_DECOMP_OK) return rtn_decline(&s->plan, "ISA-L could not inflate the image data");
    *written = count - st->avail_out;
    if (st->block_state == ISAL_BLOCK_FINISH) {
        s->stream_end = 1;
    } else if (*written == 0 && st->avail_in == in_before) {
        if (st->avail_in != 0) return rtn_decline(&s->plan, "ISA-L made no progress");
        s->isal_starved = 1;
    }
    return RTN_PNG_OK;
}

// ISA-L's side of rtn_stream_inflate.
static int rtn_stream_isal_inflate(rtn_png_stream_rows *s, uint8_t *out, size_t count) {
    for (size_t done = 0, written = 0; done < count; done += written) {
        if (s->stream_end) return rtn_decline(&s->plan, "the image data inflates to less than the image");
        if (rtn_stream_isal_call(s, out + done, count - done, &written) != RTN_PNG_OK) return RTN_PNG_DECLINED;
    }
    return RTN_PNG_OK;
}

// Inflates exactly `count` bytes into `out`: RTN_PNG_OK, or RTN_PNG_DECLINED (an inflate
// error, a stream that ends first, a chunk that is wrong).
static int rtn_stream_inflate(rtn_png_stream_rows *s, uint8_t *out, size_t count) {
    if (s->isal != NULL) return rtn_stream_isal_inflate(s, out, count);
    s->z.next_out = out;
    s->z.avail_out = (uInt)count;
    while (s->z.avail_out > 0) {
        if (s->stream_end) return rtn_decline(&s->plan, "the image data inflates to less than the image");
        if (s->z.avail_in == 0 && rtn_stream_feed(s) != RTN_PNG_OK) return RTN_PNG_DECLINED;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) s->stream_end = 1;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) return rtn_decline(&s->plan, "zlib could not inflate the image data");
    }
    return RTN_PNG_OK;
}

// Whether ISA-L may inflate the zlib stream starting with `bytes` (`size` in hand): 1 when its
// first deflate block is stored, or dynamic with a header zlib reads whole from those bytes
// (at most 4 KiB) and accepts; 0 when only zlib should (a fixed-Huffman first block, whose
// invalid symbols 286 and 287 ISA-L need not refuse as zlib does, or a header past the bytes in
// hand); -1 when zlib rejects the header (decline). The rule of rtn_fast_first_block, whose
// fixed-block inflate a stream cannot afford. Blocks after the first are not checked.
static int rtn_stream_first_block(rtn_png_fast_plan *plan, const uint8_t *bytes, size_t size) {
    if (size < 3) return 0;
    int type = (bytes[2] >> 1) & 3;
    if (type == 0) return 1;
    if (type != 2) return 0;
    int read_whole;
    int rc = rtn_zlib_block_header(bytes, size, &read_whole);
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
        rtn_decline(plan, "zlib rejects the deflate stream");
        return -1;
    }
    return read_whole;
}

rtn_png_stream_rows *rtn_png_stream_rows_open(const uint8_t *data, size_t size, int fd, const rtn_png_fast_limits *limits,
                                              int verify_adler32, int pixel_bytes, uint8_t *rgba, const char **reason) {
    rtn_png_stream_rows *s = calloc(1, sizeof *s);
    if (s == NULL) {
        *reason = "out of memory";
        return NULL;
    }
    s->data = data;
    s->size = size;
    s->fd = fd;
    s->pixel_bytes = pixel_bytes;
    rtn_png_fast_plan *plan = &s->plan;
    uint8_t head[33];
    int status = fd >= 0 && (s->input = malloc(RTN_STREAM_INPUT)) == NULL ? rtn_decline(plan, "out of memory") : RTN_PNG_OK;
    if (status == RTN_PNG_OK) {
        status = rtn_stream_exact(s, head, 33) != 0 ? rtn_decline(plan, "no signature and IHDR") : rtn_png_fast_header(head, 33, plan);
    }
    // Two filtered rows are handed to zlib as one output window, whose length is a uInt.
    if (status == RTN_PNG_OK && plan->row_bytes > ((size_t)1 << 30)) status = rtn_decline(plan, "rows over 1 GiB");
    if (status == RTN_PNG_OK) rtn_fast_walk_init(&s->walk, plan, limits);
    // The chunks before the image data, PLTE's and tRNS's payloads kept.
    while (status == RTN_PNG_OK) {
        uint32_t length;
        uint8_t type[4];
        if (rtn_stream_chunk_header(s, &length, type) != RTN_PNG_OK) {
            status = RTN_PNG_DECLINED;
            break;
        }
        if (rtn_is_type(type, "IDAT")) {
            status = rtn_fast_walk_chunk(plan, &s->walk, type, length, NULL, s->pos);
            s->idat_left = length;
            s->idat_crc = libdeflate_crc32(0, type, 4);
            break;
        }
        int is_trns = rtn_is_type(type, "tRNS");
        uint8_t *keep = is_trns ? s->plte_trns + 768 : rtn_is_type(type, "PLTE") ? s->plte_trns : NULL;
        status = rtn_stream_chunk(s, length, type, keep, keep == NULL ? 0 : is_trns ? 256 : 768);
        if (status == 1) status = rtn_decline(plan, "IEND before IDAT");
    }
    if (status == RTN_PNG_OK && s->idat_left < 2) status = rtn_decline(plan, "the first IDAT holds less than the zlib header");
    // The rules of rtn_png_fast_rows_open, with PLTE and tRNS where they were kept.
    if (status == RTN_PNG_OK && !rtn_fast_rows_form(plan, pixel_bytes, rgba)) {
        status = rtn_decline(plan, "rows asked for in a form this image does not have");
    }
    if (status == RTN_PNG_OK && rtn_fast_unpacker_open(plan, &s->unpacker) != 0) status = rtn_decline(plan, "out of memory");
    if (status == RTN_PNG_OK) {
        rtn_png_fast_plan kept = *plan;
        kept.plte_offset = 0;
        kept.trns_offset = 768;
        if (plan->color_type == 0 || plan->color_type == 3) rtn_fast_table(&kept, s->plte_trns, s->table);
        if (pixel_bytes == 1) memcpy(rgba, s->table, sizeof s->table);
        s->keyed = rtn_fast_key(&kept, s->plte_trns, s->key);
        size_t rowbytes = plan->row_bytes;
        s->filtered = calloc(5, rowbytes + 16);
        if (s->filtered == NULL || inflateInit2(&s->z, 15) != Z_OK) status = rtn_decline(plan, "out of memory");
        else s->z_open = 1;
#if defined(PNG_SET_OPTION_SUPPORTED) && defined(PNG_IGNORE_ADLER32) && ZLIB_VERNUM >= 0x1290
        // As CPNG's reader drives libpng (which then skips it the same way): the Adler-32 only
        // when asked for, since every chunk's CRC covers the compressed bytes.
        if (status == RTN_PNG_OK && !verify_adler32) inflateValidate(&s->z, 0);
#else
        (void)verify_adler32;
#endif
        s->previous = s->filtered + 2 * (rowbytes + 16);
        s->current = s->filtered + 3 * (rowbytes + 16);
        s->second = s->filtered + 4 * (rowbytes + 16);
    }
    if (status == RTN_PNG_OK) {
        // The zlib header, read through zlib's input so that it is inflated too.
        status = rtn_stream_feed(s);
        if (status == RTN_PNG_OK) status = rtn_fast_zlib_header(plan, s->z.next_in, s->z.avail_in);
    }
    int first = status == RTN_PNG_OK ? rtn_stream_first_block(plan, s->z.next_in, s->z.avail_in) : 0;
    if (first < 0) status = RTN_PNG_DECLINED;
    if (first > 0 && (s->isal = malloc(sizeof *s->isal)) != NULL) {
        // ISA-L from here on, given the bytes zlib was handed, the Adler-32 always checked (as
        // libdeflate checks it for the whole-image inflate): its leniency in blocks after the
        // first then covers only a stream that inflates to what its encoder checksummed. A
        // wrong Adler-32 declines, and libpng's answer (the pixels, unless asked to check it)
        // stands; about 5 % of the inflate's CPU.
        isal_inflate_init(s->isal);
        s->isal->crc_flag = ISAL_ZLIB;
        s->isal->next_in = s->z.next_in;
        s->isal->avail_in = s->z.avail_in;
        inflateEnd(&s->z);
        s->z_open = 0;
    }
    if (status != RTN_PNG_OK) {
        *reason = plan->reason != NULL ? plan->reason : "declined";
        rtn_png_stream_rows_close(s);
        return NULL;
    }
    return s;
}

// --- the helper thread: inflate on one core, unfilter on another --------------------------

// Rows the helper inflates between two looks at the lock.
#define RTN_STREAM_BATCH 16u

// The helper's body: inflates rows into the ring's free slots, a run of contiguous slots at a
// time, until every row is in, the caller asks it to stop, or the data is declined.
static void *rtn_stream_helper(void *arg) {
    rtn_png_stream_rows *s = arg;
    const uint32_t height = s->plan.height;
    const size_t row = s->plan.row_bytes + 1;
    // zlib's output window is a uInt: a run stays within 1 GiB (rows are at most that).
    size_t fit = ((size_t)1 << 30) / row;
    uint32_t most = fit == 0 ? 1 : fit < RTN_STREAM_BATCH ? (uint32_t)fit : RTN_STREAM_BATCH;
    int status = RTN_PNG_OK;
    uint32_t done = 0;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->stop && done < height && done - s->consumed >= s->slots) pthread_cond_wait(&s->changed, &s->lock);
        if (s->stop || done == height) break;
        uint32_t at = done % s->slots;
        uint32_t n = s->slots - (done - s->consumed);
        if (n > s->slots - at) n = s->slots - at;
        if (n > height - done) n = height - done;
        if (n > most) n = most;
        pthread_mutex_unlock(&s->lock);
        status = rtn_stream_inflate(s, s->ring + (size_t)at * row, (size_t)n * row);
        pthread_mutex_lock(&s->lock);
        if (status != RTN_PNG_OK) break;
        done += n;
        s->produced = done;
        pthread_cond_broadcast(&s->changed);
    }
    s->helper_status = status;
    s->helper_done = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

// Stops the helper (if it runs) and waits for it: afterwards the caller owns every field.
static void rtn_stream_join(rtn_png_stream_rows *s) {
    if (!s->threaded) return;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    s->threaded = 0;
}

size_t rtn_png_stream_rows_pipeline(rtn_png_stream_rows *s, size_t ring_bytes) {
    if (s == NULL || s->threaded || s->ring != NULL || s->next_row != 0 || s->declined) return 0;
    const size_t row = s->plan.row_bytes + 1;
    size_t slots = ring_bytes / row;
    if (slots < 2) slots = 2;
    if (slots > s->plan.height) slots = s->plan.height;
    s->ring = malloc(slots * row);
    if (s->ring == NULL) return 0;
    if (!s->sync_ready) {
        if (pthread_mutex_init(&s->lock, NULL) != 0) goto fail;
        if (pthread_cond_init(&s->changed, NULL) != 0) {
            pthread_mutex_destroy(&s->lock);
            goto fail;
        }
        s->sync_ready = 1;
    }
    s->slots = (uint32_t)slots;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) goto fail;
    pthread_attr_setstacksize(&attr, 256 * 1024);  // zlib and the chunk walk need a few KiB
    int started = pthread_create(&s->thread, &attr, rtn_stream_helper, s) == 0;
    pthread_attr_destroy(&attr);
    if (!started) goto fail;
    s->threaded = 1;
    return slots * row;
fail:
    free(s->ring);
    s->ring = NULL;
    return 0;
}

// The next `want` (1 or 2) filtered rows, inflated here or taken from the helper's ring
// (fewer when the helper has fewer ready): their count, 0 when the data was declined.
static uint32_t rtn_stream_filtered(rtn_png_stream_rows *s, uint32_t want, const uint8_t **a, const uint8_t **b) {
    const size_t row = s->plan.row_bytes + 1;
    if (!s->threaded) {
        if (rtn_stream_inflate(s, s->filtered, want * row) != RTN_PNG_OK) return 0;
        *a = s->filtered;
        *b = s->filtered + row;
        return want;
    }
    pthread_mutex_lock(&s->lock);
    // Both rows asked for, when the helper is still to inflate the second: a pair unfilters in
    // about the time of one row alone.
    if (s->produced - s->next_row < want && !s->helper_done && s->consumed != s->next_row) {
        // About to wait: every slot read so far goes back first, or a helper waiting for room
        // and this thread waiting for rows would wait for each other.
        s->consumed = s->consumed_told = s->next_row;
        pthread_cond_broadcast(&s->changed);
    }
    while (s->produced - s->next_row < want && !s->helper_done) pthread_cond_wait(&s->changed, &s->lock);
    uint32_t ready = s->helper_status == RTN_PNG_OK ? s->produced - s->next_row : 0;
    pthread_mutex_unlock(&s->lock);
    if (ready == 0) return 0;  // the helper declined: its reason is the plan's once it is joined
    *a = s->ring + (size_t)(s->next_row % s->slots) * row;
    *b = s->ring + (size_t)((s->next_row + 1) % s->slots) * row;
    return want < ready ? want : ready;
}

// The caller is done with the filtered rows before `next_row`: their slots go back to the
// helper a quarter of the ring at a time (and all of them before the caller waits for rows),
// so that the two threads meet at the lock a few times per ring, not once per row.
static void rtn_stream_release(rtn_png_stream_rows *s) {
    if (!s->threaded || s->next_row - s->consumed_told < (s->slots + 3) / 4) return;
    s->consumed_told = s->next_row;
    pthread_mutex_lock(&s->lock);
    s->consumed = s->next_row;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static int rtn_stream_read(rtn_png_stream_rows *s, uint8_t *dst, size_t stride, uint32_t count) {
    const rtn_png_fast_plan *plan = &s->plan;
    size_t rowbytes = plan->row_bytes;
    int stored = rtn_fast_rows_as_stored(plan, s->pixel_bytes);
    const uint8_t *key = s->keyed ? s->key : NULL;
    for (uint32_t i = 0; i < count;) {
        // Two rows at a time where the batch has them, unfiltered side by side
        // (rtn_png_unfilter_rows): into their places for rows as stored, else into `current`
        // and `second`, then expanded.
        const uint8_t *a, *b;
        uint32_t n = rtn_stream_filtered(s, i + 1 < count ? 2 : 1, &a, &b);
        if (n == 0) return RTN_PNG_DECLINED;
        if (a[0] > 4 || (n == 2 && b[0] > 4)) {
            rtn_stream_join(s);
            return rtn_decline(&s->plan, "a row filter type above 4");
        }
        uint8_t *out_a = stored ? dst + (size_t)i * stride : s->current;
        uint8_t *out_b = stored ? dst + (size_t)(i + 1) * stride : s->second;
        if (n == 2) {
            rtn_png_unfilter_rows(a[0], a + 1, b[0], b + 1, s->previous, rowbytes, (size_t)plan->bpp, out_a, out_b);
        } else {
            rtn_png_unfilter_row(a[0], a + 1, s->previous, rowbytes, (size_t)plan->bpp, out_a);
        }
        s->next_row += n;
        rtn_stream_release(s);
        if (!stored) {
            rtn_fast_hand_row(plan, s->table, key, &s->unpacker, s->pixel_bytes, out_a, dst + (size_t)i * stride);
            if (n == 2) rtn_fast_hand_row(plan, s->table, key, &s->unpacker, s->pixel_bytes, out_b, dst + (size_t)(i + 1) * stride);
        }
        memcpy(s->previous, n == 2 ? out_b : out_a, rowbytes);
        i += n;
    }
    return RTN_PNG_OK;
}

int rtn_png_stream_rows_read(rtn_png_stream_rows *s, uint8_t *dst, size_t stride, uint32_t count) {
    if (count > s->plan.height - s->next_row) return RTN_PNG_USAGE;
    if (s->declined) return RTN_PNG_DECLINED;
    int status = rtn_stream_read(s, dst, stride, count);
    if (status == RTN_PNG_DECLINED) {
        s->declined = 1;
        rtn_stream_join(s);  // the helper's reason, if it declined, is now the caller's to read
    }
    return status;
}

static int rtn_stream_finish(rtn_png_stream_rows *s) {
    rtn_png_fast_plan *plan = &s->plan;
    if (s->next_row != plan->height) return RTN_PNG_USAGE;
    // The helper has inflated every row (the caller unfiltered them all) and is ending.
    rtn_stream_join(s);
    // The stream ends here: no byte more inflates, and none is left after it.
    uint8_t spare[1];
    if (s->isal != NULL) {
        struct inflate_state *st = s->isal;
        while (!s->stream_end) {
            size_t written;
            if (rtn_stream_isal_call(s, spare, 1, &written) != RTN_PNG_OK) return RTN_PNG_DECLINED;
            if (written > 0) return rtn_decline(plan, "the image data inflates to more than the image");
        }
        // Bytes past the zlib trailer that ISA-L read ahead are whole bytes in its bit buffer.
        if (st->read_in_length >= 8) return rtn_decline(plan, "bytes after the zlib stream");
    }
    while (!s->stream_end) {
        if (s->z.avail_in == 0 && rtn_stream_feed(s) != RTN_PNG_OK) return RTN_PNG_DECLINED;
        s->z.next_out = spare;
        s->z.avail_out = 1;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        if (s->z.avail_out == 0) return rtn_decline(plan, "the image data inflates to more than the image");
        if (rc == Z_STREAM_END) s->stream_end = 1;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) return rtn_decline(plan, "zlib could not inflate the image data");
    }
    if (rtn_stream_avail_in(s) != 0 || s->idat_left != 0) return rtn_decline(plan, "bytes after the zlib stream");
    if (rtn_stream_chunk_crc(s, s->idat_crc) != RTN_PNG_OK) return RTN_PNG_DECLINED;
    for (;;) {
        uint32_t length;
        uint8_t type[4];
        if (rtn_stream_chunk_header(s, &length, type) != RTN_PNG_OK) return RTN_PNG_DECLINED;
        if (rtn_is_type(type, "IDAT") && length > 0 && s->walk.idat_state == 1) return rtn_decline(plan, "bytes after the zlib stream");
        uint8_t keep[6];
        int status = rtn_stream_chunk(s, length, type, keep, sizeof keep);
        if (status == 1) return RTN_PNG_OK;
        if (status != RTN_PNG_OK) return status;
    }
}

int rtn_png_stream_rows_finish(rtn_png_stream_rows *s) {
    if (s->declined) return RTN_PNG_DECLINED;
    int status = rtn_stream_finish(s);
    if (status == RTN_PNG_DECLINED) s->declined = 1;
    return status;
}

int rtn_png_stream_rows_inflater(const rtn_png_stream_rows *s) { return s->isal != NULL; }

const char *rtn_png_stream_rows_reason(const rtn_png_stream_rows *s) {
    return s->plan.reason != NULL ? s->plan.reason : "declined";
}

void rtn_png_stream_rows_close(rtn_png_stream_rows *s) {
    if (s == NULL) return;
    rtn_stream_join(s);
    if (s->sync_ready) {
        pthread_cond_destroy(&s->changed);
        pthread_mutex_destroy(&s->lock);
    }
    free(s->ring);
    free(s->unpacker.row);
    free(s->isal);
    if (s->z_open) inflateEnd(&s->z);
    free(s->filtered);
    free(s->input);
    free(s);
}
