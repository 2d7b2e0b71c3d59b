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
};

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
    if (p->strip_filler) png_set_filler(png, 0, PNG_FILLER_AFTER); // drop the 4th byte
    if (p->bit_depth == 16) png_set_swap(png); // rows hold 16-bit samples in host (little) order
    int passes = p->interlaced ? png_set_interlace_handling(png) : 1;
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < p->height; y++) {
            png_write_row(png, (png_const_bytep)(p->pixels + (size_t)y * p->stride));
        }
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = writer->buffer;
    *out_size = writer->size;
    free(writer);
    return RTN_PNG_OK;
}

void rtn_png_free(void *buffer) { free(buffer); }

const char *rtn_png_libpng_version(void) { return png_get_libpng_ver(NULL); }
