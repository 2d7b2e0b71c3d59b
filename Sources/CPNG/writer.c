// CPNG writer: encoding over libpng with its own setjmp; the rules are reader.c's.
#include "CPNG.h"
#include "internal.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct rtn_png_writer {
    uint8_t *buffer;
    size_t size;
    size_t capacity;
    rtn_png_status pending_status;
    char message[256];
    // The image data path's state (rtn_write_image_data), here so the error path frees it.
    z_stream zstream;
    int zstream_live;
    uint8_t *work;
};

// libpng's defaults for IDAT: its output buffer (PNG_ZBUF_SIZE), and so the IDAT chunk size.
enum { RTN_IDAT_BUFFER = 8192 };

static void rtn_write_error_fn(png_structp png, png_const_charp msg) {
    struct rtn_png_writer *writer = (struct rtn_png_writer *)png_get_error_ptr(png);
    if (writer->pending_status == RTN_PNG_OK) {
        writer->pending_status = RTN_PNG_CORRUPT;
        rtn_copy_message(writer->message, sizeof writer->message, msg);
    }
    png_longjmp(png, 1);
}

static void rtn_write_warning_fn(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

static void rtn_write_data(png_structp png, png_bytep data, size_t length) {
    struct rtn_png_writer *writer = (struct rtn_png_writer *)png_get_io_ptr(png);
    if (length > writer->capacity - writer->size) {
        size_t want = writer->capacity == 0 ? 65536 : writer->capacity;
        while (want - writer->size < length) want *= 2;
        uint8_t *grown = realloc(writer->buffer, want);
        if (grown == NULL) {
            writer->pending_status = RTN_PNG_NO_MEMORY;
            rtn_copy_message(writer->message, sizeof writer->message, "out of memory");
            png_error(png, "out of memory");
        }
        writer->buffer = grown;
        writer->capacity = want;
    }
    memcpy(writer->buffer + writer->size, data, length);
    writer->size += length;
}

static void rtn_flush_data(png_structp png) { (void)png; }

// The first two bytes of the zlib stream name the window size; for a small image libpng lowers
// it to the smallest window that holds the data (its optimize_cmf), and so do we.
static void rtn_fit_window(uint8_t *data, size_t data_size) {
    if (data_size > 16384) return;
    unsigned cmf = data[0];
    if ((cmf & 0x0f) != 8 || (cmf & 0xf0) > 0x70) return;
    unsigned info = cmf >> 4, half = 1u << (info + 7);
    if (data_size > half) return;
    do {
        half >>= 1;
        --info;
    } while (info > 0 && data_size <= half);
    cmf = (cmf & 0x0f) | (info << 4);
    data[0] = (uint8_t)cmf;
    unsigned flags = data[1] & 0xe0;
    flags += 0x1f - ((cmf << 8) + flags) % 0x1f;
    data[1] = (uint8_t)flags;
}

// Hands `length` bytes to zlib (`flush` once all are in) and writes each full output buffer as
// an IDAT chunk, the last one at Z_FINISH: libpng's png_compress_IDAT, step for step, so the
// chunks are the same. zlib failures become png_error (longjmp to rtn_png_encode).
static void rtn_compress(png_structp png, struct rtn_png_writer *w, const uint8_t *input, size_t length,
                         int flush, uint8_t *out, int *first, size_t data_size) {
    z_stream *z = &w->zstream;
    z->next_in = (Bytef *)input;
    for (;;) {
        z->avail_in = (uInt)length;
        length = 0;
        int ret = deflate(z, flush);
        length += z->avail_in;
        z->avail_in = 0;
        if (z->avail_out == 0) {
            if (*first) rtn_fit_window(out, data_size);
            *first = 0;
            png_write_chunk(png, (png_const_bytep) "IDAT", out, RTN_IDAT_BUFFER);
            z->next_out = out;
            z->avail_out = RTN_IDAT_BUFFER;
            if (ret == Z_OK && flush != Z_NO_FLUSH) continue;
        }
        if (ret == Z_OK) {
            if (length == 0) {
                if (flush == Z_FINISH) png_error(png, "Z_OK on Z_FINISH with output space");
                return;
            }
        } else if (ret == Z_STREAM_END && flush == Z_FINISH) {
            size_t size = RTN_IDAT_BUFFER - z->avail_out;
            if (*first) rtn_fit_window(out, data_size);
            if (size > 0) png_write_chunk(png, (png_const_bytep) "IDAT", out, size);
            return;
        } else {
            png_error(png, z->msg != NULL ? z->msg : "zlib failed");
        }
    }
}

// The image data of an 8-bit, non-interlaced image, then IEND: what png_write_row and
// png_write_end would write, with the rows filtered by rtn_png_filter_row (libpng's choice,
// vectorized) and compressed with libpng's zlib parameters: window bits lowered for images
// under 16 KiB, memory level 8, Z_FILTERED when any filter but none may be used, Z_RLE when
// asked. So the file is byte for byte libpng's.
static void rtn_write_image_data(png_structp png, struct rtn_png_writer *w, const rtn_png_encode_params *p) {
    size_t bpp = rtn_png_channels(p->color_type), length = (size_t)p->width * bpp;
    unsigned allowed = rtn_png_allowed_filters(p);
    size_t data_size = length < 32768 && p->height < 32768 ? (length + 1) * p->height : 0xffffffffu;
    int window_bits = 15;
    if (data_size <= 16384) {
        unsigned half = 1u << (window_bits - 1);
        while (data_size + 262 <= half) {
            half >>= 1;
            --window_bits;
        }
    }
    int strategy = p->run_length ? Z_RLE : (allowed != 1 ? Z_FILTERED : Z_DEFAULT_STRATEGY);
    // One block: the row above (zeros for the first), the current row without its filler, the
    // filtered row (with its type byte) and zlib's output buffer.
    w->work = calloc(3 * length + 1 + RTN_IDAT_BUFFER, 1);
    if (w->work == NULL) {
        w->pending_status = RTN_PNG_NO_MEMORY;
        png_error(png, "out of memory");
    }
    uint8_t *above = w->work, *packed = above + length, *filtered = packed + length;
    uint8_t *out = filtered + length + 1;
    if (deflateInit2(&w->zstream, p->level, Z_DEFLATED, window_bits, 8, strategy) != Z_OK) {
        png_error(png, w->zstream.msg != NULL ? w->zstream.msg : "zlib could not start");
    }
    w->zstream_live = 1;
    w->zstream.next_out = out;
    w->zstream.avail_out = RTN_IDAT_BUFFER;
    int first = 1;
    const uint8_t *prev = above;
    for (uint32_t y = 0; y < p->height; y++) {
        const uint8_t *row = rtn_png_source_row(p, y, prev, above, packed);
        rtn_png_filter_row(row, prev, length, bpp, allowed, filtered);
        rtn_compress(png, w, filtered, length + 1, Z_NO_FLUSH, out, &first, data_size);
        prev = row;
    }
    rtn_compress(png, w, NULL, 0, Z_FINISH, out, &first, data_size);
    deflateEnd(&w->zstream);
    w->zstream_live = 0;
    png_write_chunk(png, (png_const_bytep) "IEND", NULL, 0);
}

static int rtn_valid_depth(int color_type, int bit_depth) {
    switch (color_type) {
    case 0: return bit_depth == 1 || bit_depth == 2 || bit_depth == 4 || bit_depth == 8 || bit_depth == 16;
    case 3: return bit_depth == 1 || bit_depth == 2 || bit_depth == 4 || bit_depth == 8;
    case 2: case 4: case 6: return bit_depth == 8 || bit_depth == 16;
    default: return 0;
    }
}

rtn_png_status rtn_png_encode(const rtn_png_encode_params *p, uint8_t **out, size_t *out_size,
                              rtn_png_error *err) {
    if (p == NULL || p->pixels == NULL || out == NULL || out_size == NULL || p->width == 0 ||
        p->height == 0 || p->level < 0 || p->level > 9 || p->filter < RTN_PNG_FILTER_NONE ||
        p->filter > RTN_PNG_FILTER_ADAPTIVE || !rtn_valid_depth(p->color_type, p->bit_depth) ||
        (p->strip_filler && (p->color_type != 2 || p->bit_depth != 8)) ||
        (p->color_type == 3 && (p->palette == NULL || p->palette_count < 1 || p->palette_count > 256))) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "bad encode arguments");
        return RTN_PNG_USAGE;
    }
    *out = NULL;
    *out_size = 0;
    // Heap state, so nothing the callbacks change lives in this frame across the longjmp.
    struct rtn_png_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        rtn_set_error(err, RTN_PNG_NO_MEMORY, ENOMEM, "out of memory");
        return RTN_PNG_NO_MEMORY;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, writer, rtn_write_error_fn,
                                              rtn_write_warning_fn);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        if (png != NULL) png_destroy_write_struct(&png, NULL);
        free(writer);
        rtn_set_error(err, RTN_PNG_NO_MEMORY, ENOMEM, "libpng could not allocate its state");
        return RTN_PNG_NO_MEMORY;
    }
    if (setjmp(png_jmpbuf(png))) {
        rtn_png_status status =
            writer->pending_status == RTN_PNG_OK ? RTN_PNG_CORRUPT : writer->pending_status;
        rtn_set_error(err, status, 0, writer->message);
        png_destroy_write_struct(&png, &info);
        if (writer->zstream_live) deflateEnd(&writer->zstream);
        free(writer->work);
        free(writer->buffer);
        free(writer);
        return status;
    }
    png_set_write_fn(png, writer, rtn_write_data, rtn_flush_data);
    png_set_IHDR(png, info, p->width, p->height, p->bit_depth, p->color_type,
                 p->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (p->color_type == 3) {
        png_color colors[256];
        for (int i = 0; i < p->palette_count; i++) {
            colors[i].red = p->palette[3 * i];
            colors[i].green = p->palette[3 * i + 1];
            colors[i].blue = p->palette[3 * i + 2];
        }
        png_set_PLTE(png, info, colors, p->palette_count);
        if (p->trns_alpha != NULL && p->trns_count > 0) {
            png_set_tRNS(png, info, p->trns_alpha, p->trns_count, NULL);
        }
    } else if ((p->color_type == 0 || p->color_type == 2) && p->trns_count > 0) {
        png_color_16 key;
        memset(&key, 0, sizeof key);
        key.gray = p->trns_color[0];
        key.red = p->trns_color[0];
        key.green = p->trns_color[1];
        key.blue = p->trns_color[2];
        png_set_tRNS(png, info, NULL, 0, &key);
    }
    png_set_compression_level(png, p->level);
    if (p->run_length) png_set_compression_strategy(png, Z_RLE);
    int flags;
    switch (p->filter) {
    case RTN_PNG_FILTER_NONE: flags = PNG_FILTER_NONE; break;
    case RTN_PNG_FILTER_SUB: flags = PNG_FILTER_SUB; break;
    case RTN_PNG_FILTER_UP: flags = PNG_FILTER_UP; break;
    case RTN_PNG_FILTER_AVERAGE: flags = PNG_FILTER_AVG; break;
    case RTN_PNG_FILTER_PAETH: flags = PNG_FILTER_PAETH; break;
    default: flags = PNG_ALL_FILTERS; break;
    }
    png_set_filter(png, PNG_FILTER_TYPE_BASE, flags);
    png_write_info(png, info);
    if (!p->interlaced && p->bit_depth == 8 && !p->libpng_rows) {
        rtn_write_image_data(png, writer, p);
    } else {
        if (p->strip_filler) png_set_filler(png, 0, PNG_FILLER_AFTER); // drop the 4th byte
        if (p->bit_depth == 16) png_set_swap(png); // rows hold 16-bit samples in host (little) order
        int passes = p->interlaced ? png_set_interlace_handling(png) : 1;
        for (int pass = 0; pass < passes; pass++) {
            for (uint32_t y = 0; y < p->height; y++) {
                png_write_row(png, (png_const_bytep)(p->pixels + (size_t)y * p->stride));
            }
        }
        png_write_end(png, info);
    }
    png_destroy_write_struct(&png, &info);
    free(writer->work);
    *out = writer->buffer;
    *out_size = writer->size;
    free(writer);
    return RTN_PNG_OK;
}

void rtn_png_free(void *buffer) { free(buffer); }

const char *rtn_png_libpng_version(void) { return png_get_libpng_ver(NULL); }
