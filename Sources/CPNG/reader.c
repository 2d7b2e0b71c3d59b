// CPNG reader: whole decode operations over libpng, each with its own setjmp.
//
// Rules kept here (docs/ARCHITECTURE.md: setjmp never crosses into Swift):
// - every exported function sets the jump buffer before its first libpng call, so the
//   longjmp from `rtn_error_fn` lands in a C frame of the same call;
// - the read and write callbacks are C and may call png_error; Swift never sees them;
// - the reader owns its libpng structs and frees them only in `rtn_png_reader_close`,
//   so Swift can never hold a pointer to a destroyed struct;
// - warnings are counted, never printed (a library does not write to stderr).
#include "CPNG.h"
#include "internal.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(png_byte) == 1, "libpng bytes are octets");

struct rtn_png_reader {
    png_structp png;
    png_infop info;
    // Memory source.
    const uint8_t *data;
    size_t size;
    size_t offset;
    // File source (owned).
    FILE *file;
    // Row pointers for whole-image reads (owned, freed on close).
    png_bytep *rows;
    uint32_t width;
    uint32_t height;
    uint32_t rows_read;
    int passes;
    // Bytes per decoded pixel: 4 (RGBA8), 1 after rtn_png_reader_start_indexed, 3 after
    // rtn_png_reader_start_rgb.
    int pixel_bytes;
    int started;
    int finished;
    int warnings;
    // 1 when a bad Adler-32 must fail the read (rtn_png_limits.verify_adler32).
    int verify_adler32;
    // Why the last longjmp happened.
    rtn_png_status pending_status;
    int pending_errno;
    char message[256];
    // The latest warning: libpng explains an IHDR rejection in a warning before the error.
    char last_warning[128];
};

// libpng's error callback: record the message and jump back to the operation's setjmp.
static void rtn_error_fn(png_structp png, png_const_charp msg) {
    struct rtn_png_reader *reader = (struct rtn_png_reader *)png_get_error_ptr(png);
    if (reader != NULL) {
        if (reader->pending_status == RTN_PNG_OK) {
            reader->pending_status = RTN_PNG_CORRUPT;
            // libpng phrases user-limit failures like this; report them as limits.
            if (msg != NULL && (strstr(msg, "exceeds user limit") != NULL ||
                                strstr(msg, "chunk data is too large") != NULL ||
                                strstr(msg, "too many") != NULL)) {
                reader->pending_status = RTN_PNG_LIMIT;
            }
            if (msg != NULL && strstr(msg, "out of memory") != NULL) {
                reader->pending_status = RTN_PNG_NO_MEMORY;
            }
            rtn_copy_message(reader->message, sizeof reader->message, msg);
            // "Invalid IHDR data" alone does not say which field; the warning before it does.
            if (msg != NULL && strcmp(msg, "Invalid IHDR data") == 0 && reader->last_warning[0] != '\0') {
                snprintf(reader->message, sizeof reader->message, "%s: %s", msg, reader->last_warning);
                if (strstr(reader->last_warning, "exceeds user limit") != NULL) {
                    reader->pending_status = RTN_PNG_LIMIT;
                }
            }
        }
    }
    png_longjmp(png, 1);
}

static void rtn_warning_fn(png_structp png, png_const_charp msg) {
    struct rtn_png_reader *reader = (struct rtn_png_reader *)png_get_error_ptr(png);
    if (reader == NULL) return;
    // zlib finds a bad Adler-32 while libpng reads the last row (an error) or, when the
    // checksum sits in a later IDAT chunk, while png_read_end drains the stream, where libpng
    // calls it a benign error and only warns. Asked to verify, both fail the read.
    if (reader->verify_adler32 && msg != NULL && strstr(msg, "incorrect data check") != NULL) {
        rtn_error_fn(png, msg);
    }
    reader->warnings += 1;
    rtn_copy_message(reader->last_warning, sizeof reader->last_warning, msg);
}

// Read callback over memory: a short read is truncation.
static void rtn_read_memory(png_structp png, png_bytep out, size_t length) {
    struct rtn_png_reader *reader = (struct rtn_png_reader *)png_get_io_ptr(png);
    if (length > reader->size - reader->offset) {
        reader->pending_status = RTN_PNG_TRUNCATED;
        rtn_copy_message(reader->message, sizeof reader->message, "unexpected end of data");
        png_error(png, "unexpected end of data");
    }
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

// Read callback over a FILE: a short read is truncation, a stream error is I/O.
static void rtn_read_file(png_structp png, png_bytep out, size_t length) {
    struct rtn_png_reader *reader = (struct rtn_png_reader *)png_get_io_ptr(png);
    size_t got = fread(out, 1, length, reader->file);
    if (got != length) {
        if (ferror(reader->file)) {
            reader->pending_status = RTN_PNG_IO;
            reader->pending_errno = errno;
            rtn_copy_message(reader->message, sizeof reader->message, strerror(errno));
            png_error(png, "read error");
        }
        reader->pending_status = RTN_PNG_TRUNCATED;
        rtn_copy_message(reader->message, sizeof reader->message, "unexpected end of data");
        png_error(png, "unexpected end of data");
    }
}

static void rtn_fail_from_reader(struct rtn_png_reader *reader, rtn_png_error *err) {
    rtn_png_status status = reader->pending_status == RTN_PNG_OK ? RTN_PNG_CORRUPT
                                                                 : reader->pending_status;
    rtn_set_error(err, status, reader->pending_errno, reader->message);
}

static struct rtn_png_reader *rtn_reader_alloc(rtn_png_error *err) {
    struct rtn_png_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) {
        rtn_set_error(err, RTN_PNG_NO_MEMORY, ENOMEM, "out of memory");
        return NULL;
    }
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, rtn_error_fn,
                                         rtn_warning_fn);
    if (reader->png != NULL) reader->info = png_create_info_struct(reader->png);
    if (reader->png == NULL || reader->info == NULL) {
        rtn_set_error(err, RTN_PNG_NO_MEMORY, ENOMEM, "libpng could not allocate its state");
        rtn_png_reader_close(reader);
        return NULL;
    }
    return reader;
}

// Reads the header (the signature has been consumed): every chunk up to the first IDAT.
// Allocates nothing proportional to the image size. Must be called with the jump buffer of
// the calling operation already set.
static void rtn_reader_read_header(struct rtn_png_reader *reader, const rtn_png_limits *limits,
                                   rtn_png_header *header) {
    png_structp png = reader->png;
    png_infop info = reader->info;
    if (limits != NULL) {
        if (limits->max_width != 0 || limits->max_height != 0) {
            png_set_user_limits(png, limits->max_width ? limits->max_width : 0x7fffffffU,
                                limits->max_height ? limits->max_height : 0x7fffffffU);
        }
        if (limits->chunk_cache_max != 0) png_set_chunk_cache_max(png, limits->chunk_cache_max);
        if (limits->chunk_malloc_max != 0) png_set_chunk_malloc_max(png, limits->chunk_malloc_max);
    }
    reader->verify_adler32 = limits != NULL && limits->verify_adler32 != 0;
#if defined(PNG_SET_OPTION_SUPPORTED) && defined(PNG_IGNORE_ADLER32)
    // Every chunk's CRC-32 already covers the compressed bytes; zlib's Adler-32 over the
    // decompressed ones is a second pass over every byte that adds nothing for a file whose
    // CRCs match (libvips skips it the same way unless asked to fail on errors).
    if (!reader->verify_adler32) png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
#if defined(PNG_SET_OPTION_SUPPORTED) && defined(PNG_MAXIMUM_INFLATE_WINDOW)
    // zlib's full 32 KiB window whatever the stream's header declares (libpng's own remedy for
    // "too far back" streams): a distance up to 32 KiB back always decodes, as libdeflate
    // decodes it, so the whole-image fast path and libpng agree on every window (fastpath.c).
    png_set_option(png, PNG_MAXIMUM_INFLATE_WINDOW, PNG_OPTION_ON);
#endif
    // Skip every ancillary chunk, known or not: the decoder keeps samples as stored (no gamma,
    // colour space or text), so only IHDR, PLTE, tRNS, IDAT and IEND matter. A skipped chunk
    // is read through a fixed stack buffer, so a length field that lies (a 141-byte file whose
    // tEXt claims 2 GiB) costs nothing; libpng would otherwise allocate the declared length.
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    reader->width = width;
    reader->height = height;
    if (header != NULL) {
        header->width = width;
        header->height = height;
        header->bit_depth = bit_depth;
        header->color_type = color_type;
        header->interlaced = interlace != PNG_INTERLACE_NONE;
        header->has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
        header->passes = interlace != PNG_INTERLACE_NONE ? 7 : 1;
    }
}

// The end of every start function: libpng's row set-up, checked to give `pixel_bytes` bytes a
// pixel (png_error with `problem` otherwise; call inside the caller's setjmp).
static void rtn_begin_rows(rtn_png_reader *reader, int pixel_bytes, const char *problem) {
    reader->passes = png_set_interlace_handling(reader->png);
    png_read_update_info(reader->png, reader->info);
    if (png_get_rowbytes(reader->png, reader->info) != (size_t)reader->width * pixel_bytes) {
        reader->pending_status = RTN_PNG_CORRUPT;
        png_error(reader->png, problem);
    }
    reader->pixel_bytes = pixel_bytes;
    reader->started = 1;
}

rtn_png_status rtn_png_reader_start(rtn_png_reader *reader, rtn_png_error *err) {
    if (reader == NULL || reader->started) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "start called twice");
        return RTN_PNG_USAGE;
    }
    png_structp png = reader->png;
    png_infop info = reader->info;
    if (setjmp(png_jmpbuf(png))) {
        rtn_fail_from_reader(reader, err);
        return err != NULL ? err->status : RTN_PNG_CORRUPT;
    }
    int bit_depth = png_get_bit_depth(png, info);
    int color_type = png_get_color_type(png, info);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    // To RGBA8, samples as stored: no gamma, no color-space conversion.
    png_set_expand(png);                        // palette → RGB, gray < 8 → 8, tRNS → alpha
    if (bit_depth == 16) png_set_scale_16(png); // 16 → 8 with rounding
    if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    if ((color_type & PNG_COLOR_MASK_ALPHA) == 0 && !has_trns) {
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    }
    rtn_begin_rows(reader, 4, "transforms did not produce RGBA8 rows");
    return RTN_PNG_OK;
}

rtn_png_status rtn_png_reader_start_indexed(rtn_png_reader *reader, uint8_t *rgba, rtn_png_error *err) {
    if (reader == NULL || reader->started || rgba == NULL) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "start_indexed called twice or without a table");
        return RTN_PNG_USAGE;
    }
    png_structp png = reader->png;
    png_infop info = reader->info;
    int bit_depth = png_get_bit_depth(png, info);
    int color_type = png_get_color_type(png, info);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    int palette = color_type == PNG_COLOR_TYPE_PALETTE;
    if ((!palette && !(color_type == PNG_COLOR_TYPE_GRAY && !has_trns)) ||
        png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "only non-interlaced palette and gray images read as indices");
        return RTN_PNG_USAGE;
    }
    if (setjmp(png_jmpbuf(png))) {
        rtn_fail_from_reader(reader, err);
        return err != NULL ? err->status : RTN_PNG_CORRUPT;
    }
    memset(rgba, 0, 256 * 4);
    if (palette) {
        png_colorp colors = NULL;
        int count = 0;
        png_bytep alpha = NULL;
        int alphas = 0;
        png_get_PLTE(png, info, &colors, &count);
        if (has_trns) png_get_tRNS(png, info, &alpha, &alphas, NULL);
        for (int i = 0; i < 256; i++) {
            if (i < count) {
                rgba[4 * i] = colors[i].red;
                rgba[4 * i + 1] = colors[i].green;
                rgba[4 * i + 2] = colors[i].blue;
            }
            rgba[4 * i + 3] = i < alphas ? alpha[i] : 0xff;
        }
        if (bit_depth < 8) png_set_packing(png);
    } else {
        for (int i = 0; i < 256; i++) {
            rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = (uint8_t)i;
            rgba[4 * i + 3] = 0xff;
        }
        if (bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
        if (bit_depth == 16) png_set_scale_16(png);
    }
    rtn_begin_rows(reader, 1, "transforms did not produce one byte per pixel");
    return RTN_PNG_OK;
}

rtn_png_status rtn_png_reader_start_rgb(rtn_png_reader *reader, rtn_png_error *err) {
    if (reader == NULL || reader->started) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "start_rgb called twice");
        return RTN_PNG_USAGE;
    }
    png_structp png = reader->png;
    png_infop info = reader->info;
    if (png_get_color_type(png, info) != PNG_COLOR_TYPE_RGB || png_get_bit_depth(png, info) != 8 ||
        png_get_valid(png, info, PNG_INFO_tRNS) || png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "only non-interlaced 8-bit RGB images without tRNS read as RGB");
        return RTN_PNG_USAGE;
    }
    if (setjmp(png_jmpbuf(png))) {
        rtn_fail_from_reader(reader, err);
        return err != NULL ? err->status : RTN_PNG_CORRUPT;
    }
    rtn_begin_rows(reader, 3, "rows are not three bytes a pixel");
    return RTN_PNG_OK;
}

static const char *rtn_sig_problem(const uint8_t *sig, size_t n) {
    // Returns NULL when `sig` (n bytes, n <= 8) is a prefix of the PNG signature.
    return png_sig_cmp((png_const_bytep)sig, 0, n) == 0 ? NULL : "not a PNG signature";
}

rtn_png_reader *rtn_png_reader_open_memory(const uint8_t *data, size_t size,
                                           const rtn_png_limits *limits,
                                           rtn_png_header *header, rtn_png_error *err) {
    size_t n = size < 8 ? size : 8;
    if (rtn_sig_problem(data, n) != NULL) {
        rtn_set_error(err, RTN_PNG_NOT_PNG, 0, "not a PNG signature");
        return NULL;
    }
    if (size < 8) {
        rtn_set_error(err, RTN_PNG_TRUNCATED, 0, "file ends inside the PNG signature");
        return NULL;
    }
    struct rtn_png_reader *reader = rtn_reader_alloc(err);
    if (reader == NULL) return NULL;
    reader->data = data;
    reader->size = size;
    reader->offset = 8;
    if (setjmp(png_jmpbuf(reader->png))) {
        rtn_fail_from_reader(reader, err);
        rtn_png_reader_close(reader);
        return NULL;
    }
    png_set_read_fn(reader->png, reader, rtn_read_memory);
    rtn_reader_read_header(reader, limits, header);
    return reader;
}

rtn_png_reader *rtn_png_reader_open_fd(int fd, const rtn_png_limits *limits,
                                       rtn_png_header *header, rtn_png_error *err) {
    // From here on this function owns fd: every path below closes it exactly once.
    FILE *file = fdopen(fd, "rb");
    if (file == NULL) {
        int e = errno;
        close(fd);
        rtn_set_error(err, RTN_PNG_IO, e, strerror(e));
        return NULL;
    }
    // 16 bytes: the signature, and enough of anything else to say what it looks like.
    uint8_t lead[16];
    size_t got = fread(lead, 1, 8, file);
    if (got < 8 && ferror(file)) {
        int e = errno;
        fclose(file);
        rtn_set_error(err, RTN_PNG_IO, e, strerror(e));
        return NULL;
    }
    if (rtn_sig_problem(lead, got) != NULL) {
        if (got == 8) got += fread(lead + 8, 1, 8, file);
        fclose(file);
        rtn_set_error(err, RTN_PNG_NOT_PNG, 0, "not a PNG signature");
        if (err != NULL) {
            memcpy(err->leading, lead, got);
            err->leading_count = (int)got;
        }
        return NULL;
    }
    if (got < 8) {
        fclose(file);
        rtn_set_error(err, RTN_PNG_TRUNCATED, 0, "file ends inside the PNG signature");
        return NULL;
    }
    struct rtn_png_reader *reader = rtn_reader_alloc(err);
    if (reader == NULL) {
        fclose(file);
        return NULL;
    }
    reader->file = file;  // rtn_png_reader_close closes it
    if (setjmp(png_jmpbuf(reader->png))) {
        rtn_fail_from_reader(reader, err);
        rtn_png_reader_close(reader);
        return NULL;
    }
    png_set_read_fn(reader->png, reader, rtn_read_file);
    rtn_reader_read_header(reader, limits, header);
    return reader;
}

rtn_png_status rtn_png_reader_read_image(rtn_png_reader *reader, uint8_t *dst, size_t stride,
                                         rtn_png_error *err) {
    if (reader == NULL || !reader->started || dst == NULL || stride < (size_t)reader->width * reader->pixel_bytes ||
        reader->rows_read != 0 || reader->finished) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "read_image called out of order or with a bad buffer");
        return RTN_PNG_USAGE;
    }
    if (reader->rows == NULL) {
        reader->rows = malloc((size_t)reader->height * sizeof(png_bytep));
        if (reader->rows == NULL) {
            rtn_set_error(err, RTN_PNG_NO_MEMORY, ENOMEM, "out of memory for row pointers");
            return RTN_PNG_NO_MEMORY;
        }
    }
    for (uint32_t y = 0; y < reader->height; y++) reader->rows[y] = dst + (size_t)y * stride;
    if (setjmp(png_jmpbuf(reader->png))) {
        rtn_fail_from_reader(reader, err);
        return err != NULL ? err->status : RTN_PNG_CORRUPT;
    }
    png_read_image(reader->png, reader->rows);
    reader->rows_read = reader->height;
    png_read_end(reader->png, NULL);
    reader->finished = 1;
    return RTN_PNG_OK;
}

rtn_png_status rtn_png_reader_read_rows(rtn_png_reader *reader, uint8_t *dst, size_t stride,
                                        uint32_t count, rtn_png_error *err) {
    if (reader == NULL || !reader->started || dst == NULL || stride < (size_t)reader->width * reader->pixel_bytes ||
        reader->finished ||
        count > reader->height - reader->rows_read) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "read_rows called out of order or past the last row");
        return RTN_PNG_USAGE;
    }
    if (reader->passes != 1) {
        rtn_set_error(err, RTN_PNG_USAGE, 0, "interlaced images cannot be read row by row");
        return RTN_PNG_USAGE;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        rtn_fail_from_reader(reader, err);
        return err != NULL ? err->status : RTN_PNG_CORRUPT;
    }
    for (uint32_t i = 0; i < count; i++) {
        png_read_row(reader->png, dst + (size_t)i * stride, NULL);
        reader->rows_read += 1;
    }
    if (reader->rows_read == reader->height) {
        png_read_end(reader->png, NULL);
        reader->finished = 1;
    }
    return RTN_PNG_OK;
}

int rtn_png_reader_warning_count(const rtn_png_reader *reader) {
    return reader == NULL ? 0 : reader->warnings;
}

void rtn_png_reader_close(rtn_png_reader *reader) {
    if (reader == NULL) return;
    if (reader->png != NULL) {
        png_destroy_read_struct(&reader->png, reader->info != NULL ? &reader->info : NULL, NULL);
    }
    if (reader->file != NULL) fclose(reader->file);
    free(reader->rows);
    free(reader);
}

