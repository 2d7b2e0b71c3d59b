/* encoder-bench: CPNG's fast PNG encoder (Sources/CPNG/encoder.c) against its zlib path
 * (Sources/CPNG/writer.c) and libdeflate, on thumbnails; and a check of the fast encoder's files.
 *
 *   encoder-bench check [DIR]
 *     Encodes generated bitmaps (noise, flat, gradients, blocks; 1x1, 1xN, Nx1, odd widths; every
 *     8-bit color type) with rtn_png_encode_fast, decodes each with libpng's simplified API and
 *     compares the pixels exactly. With DIR, also writes each file there (for pngcheck and
 *     stb_image). Prints the number of files checked; exits 1 at the first mismatch.
 *
 *   encoder-bench bench ROUNDS SET FILE...
 *     Reads every FILE to RGBA8 (libpng's simplified API; the color type then chosen as
 *     PNGEncoder's `automatic` does: RGB when every pixel is opaque, RGBA otherwise), or with
 *     SET "synthetic" ignores FILE and makes 256x256 bitmaps (noise, gradients, flat blocks, with
 *     and without alpha). Then encodes all of them with each encoder, ROUNDS rounds, the order
 *     reversed every other round, timing the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) around
 *     each encoder's pass. Encoders: "fast" (rtn_png_encode_fast, adaptive filter), "zlib-rle"
 *     (rtn_png_encode, adaptive, level 6, Z_RLE: `retention thumbnail --compression zlib`),
 *     "zlib-6" (the standard search at level 6, PNGEncoder's default), "libdeflate-1" (the rows
 *     filtered as the others filter them, then libdeflate_zlib_compress at level 1; its size is
 *     the stream plus the 57 bytes of a file's chunks around it). Every fast file is decoded once
 *     and compared with its pixels. Prints one line per round and encoder:
 *       <set> <round> <encoder> <bytes, all images> <CPU seconds, all images> <pixels, all images>
 *
 * Build: cc -O2 -I Sources/CPNG/include encoder-bench.c Sources/CPNG/encoder.c Sources/CPNG/writer.c
 *        Sources/CPNG/kernels.c -lpng16 -lz -ldeflate
 */
#include "CPNG.h"

#include <libdeflate.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rgba-image.h"

static double thread_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static uint32_t next_random(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* `bpp` bytes a pixel of pattern 0 noise, 1 flat, 2 horizontal gradient, 3 diagonal gradient,
 * 4 blocks with edges, 5 sparse noise on flat. */
static uint8_t *make_pixels(uint32_t width, uint32_t height, int bpp, int pattern) {
    uint8_t *p = malloc((size_t)width * height * bpp + 1);
    for (uint32_t y = 0; y < height; y++) {
        for (uint32_t x = 0; x < width; x++) {
            for (int c = 0; c < bpp; c++) {
                size_t i = ((size_t)y * width + x) * bpp + c;
                switch (pattern) {
                case 0: p[i] = (uint8_t)next_random(); break;
                case 1: p[i] = (uint8_t)(40 + 50 * c); break;
                case 2: p[i] = (uint8_t)(x + 30 * c); break;
                case 3: p[i] = (uint8_t)((x * 3 + y * 2) / 2 + 20 * c); break;
                case 4: p[i] = (uint8_t)((((x / 9) + (y / 7)) % 4) * 60 + 13 * c); break;
                default: p[i] = (next_random() % 23 == 0) ? (uint8_t)next_random() : (uint8_t)(100 + c); break;
                }
            }
        }
    }
    return p;
}

static int decode_matches(const uint8_t *png_bytes, size_t size, const uint8_t *expected, uint32_t width,
                          uint32_t height, int color_type, int strip, const uint8_t *palette, const uint8_t *trns,
                          int trns_count) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, png_bytes, size)) {
        fprintf(stderr, "libpng: %s\n", img.message);
        return 0;
    }
    if (img.width != width || img.height != height) return 0;
    img.format = PNG_FORMAT_RGBA;
    uint8_t *got = malloc(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, NULL, got, 0, NULL)) {
        fprintf(stderr, "libpng: %s\n", img.message);
        free(got);
        return 0;
    }
    int ok = 1;
    for (size_t i = 0; i < (size_t)width * height && ok; i++) {
        uint8_t want[4];
        switch (color_type) {
        case 0: want[0] = want[1] = want[2] = expected[i]; want[3] = 255; break;
        case 4: want[0] = want[1] = want[2] = expected[2 * i]; want[3] = expected[2 * i + 1]; break;
        case 2:
            memcpy(want, expected + i * (strip ? 4 : 3), 3);
            want[3] = 255;
            break;
        case 3: {
            int k = expected[i];
            memcpy(want, palette + 3 * k, 3);
            want[3] = k < trns_count ? trns[k] : 255;
            break;
        }
        default: memcpy(want, expected + 4 * i, 4); break;
        }
        if (memcmp(want, got + 4 * i, 4) != 0) {
            fprintf(stderr, "pixel %zu differs\n", i);
            ok = 0;
        }
    }
    free(got);
    return ok;
}

static int check(const char *dir) {
    static const uint32_t sizes[][2] = {{1, 1}, {1, 17}, {17, 1},  {2, 2},   {3, 5},   {15, 15}, {16, 16},
                                        {17, 3}, {31, 9}, {33, 33}, {100, 1}, {1, 100}, {257, 19}, {256, 256}, {40000, 3},
                                        {600, 400}};
    /* color type, bytes a pixel in memory, strip */
    static const int kinds[][3] = {{0, 1, 0}, {2, 4, 1}, {2, 3, 0}, {3, 1, 0}, {4, 2, 0}, {6, 4, 0}};
    uint8_t palette[768], trns[256];
    for (int i = 0; i < 768; i++) palette[i] = (uint8_t)(i * 7);
    for (int i = 0; i < 256; i++) trns[i] = (uint8_t)(255 - i);
    int checked = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            for (int pattern = 0; pattern < 6; pattern++) {
                for (int filter = 0; filter <= 5; filter += (pattern == 3 ? 1 : 5)) {
                    uint32_t w = sizes[s][0], h = sizes[s][1];
                    int bpp = kinds[k][1];
                    uint8_t *pixels = make_pixels(w, h, bpp, pattern);
                    rtn_png_encode_params p;
                    memset(&p, 0, sizeof p);
                    p.pixels = pixels;
                    p.width = w;
                    p.height = h;
                    p.stride = (size_t)w * bpp;
                    p.color_type = kinds[k][0];
                    p.bit_depth = 8;
                    p.strip_filler = kinds[k][2];
                    p.filter = (rtn_png_filter)filter;
                    p.palette = palette;
                    p.palette_count = 256;
                    int trns_count = (pattern % 2) ? 200 : 0;
                    if (p.color_type == 3 && trns_count) {
                        p.trns_alpha = trns;
                        p.trns_count = trns_count;
                    }
                    uint8_t *out = NULL;
                    size_t size = 0;
                    rtn_png_error err;
                    if (rtn_png_encode_fast(&p, &out, &size, &err) != RTN_PNG_OK) {
                        fprintf(stderr, "encode failed: %s\n", err.message);
                        return 1;
                    }
                    if (!decode_matches(out, size, pixels, w, h, p.color_type, p.strip_filler, palette, trns,
                                        p.color_type == 3 ? trns_count : 0)) {
                        fprintf(stderr, "mismatch: type %d %ux%u pattern %d filter %d\n", p.color_type, w, h, pattern,
                                filter);
                        return 1;
                    }
                    if (dir != NULL) {
                        char path[4096];
                        snprintf(path, sizeof path, "%s/t%d%s-%ux%u-p%d-f%d.png", dir, p.color_type,
                                 p.strip_filler ? "s" : "", w, h, pattern, filter);
                        FILE *f = fopen(path, "wb");
                        if (f == NULL || fwrite(out, 1, size, f) != size || fclose(f) != 0) {
                            fprintf(stderr, "cannot write %s\n", path);
                            return 1;
                        }
                    }
                    rtn_png_free(out);
                    free(pixels);
                    checked++;
                }
            }
        }
    }
    printf("%d files decode to their pixels\n", checked);
    return 0;
}

enum { FAST, ZLIB_RLE, ZLIB_6, LIBDEFLATE_1, ENCODERS };
static const char *encoder_names[ENCODERS] = {"fast", "zlib-rle", "zlib-6", "libdeflate-1"};

static void params_for(const image *im, rtn_png_encode_params *p) {
    memset(p, 0, sizeof *p);
    p->pixels = im->pixels;
    p->width = im->width;
    p->height = im->height;
    p->stride = (size_t)im->width * 4;
    p->color_type = im->opaque ? 2 : 6;
    p->strip_filler = im->opaque;
    p->bit_depth = 8;
    p->filter = RTN_PNG_FILTER_ADAPTIVE;
    p->level = 6;
}

/* The rows filtered as the encoders filter them, then libdeflate at level 1. */
static size_t libdeflate_encode(const image *im, struct libdeflate_compressor *c) {
    size_t bpp = im->opaque ? 3 : 4, length = im->width * bpp, total = (length + 1) * im->height;
    uint8_t *rows = calloc(2 * length, 1), *filtered = malloc(total);
    const uint8_t *prev = rows;
    for (uint32_t y = 0; y < im->height; y++) {
        const uint8_t *src = im->pixels + (size_t)y * im->width * 4;
        uint8_t *row = (uint8_t *)src;
        if (im->opaque) {
            row = (y % 2) ? rows : rows + length;
            for (uint32_t x = 0; x < im->width; x++) memcpy(row + 3 * x, src + 4 * x, 3);
        }
        rtn_png_filter_row(row, prev, length, bpp, 0x1f, filtered + y * (length + 1));
        prev = row;
    }
    size_t bound = libdeflate_zlib_compress_bound(c, total);
    uint8_t *out = malloc(bound);
    size_t size = libdeflate_zlib_compress(c, filtered, total, out, bound);
    free(out);
    free(filtered);
    free(rows);
    return size + 57; /* signature, IHDR, IDAT's frame and CRC, IEND */
}

static size_t run_encoder(int encoder, const image *images, int count, struct libdeflate_compressor *c,
                          double *seconds) {
    size_t total = 0;
    double start = thread_seconds();
    for (int i = 0; i < count; i++) {
        if (encoder == LIBDEFLATE_1) {
            total += libdeflate_encode(&images[i], c);
            continue;
        }
        rtn_png_encode_params p;
        params_for(&images[i], &p);
        p.run_length = encoder == ZLIB_RLE;
        uint8_t *out = NULL;
        size_t size = 0;
        rtn_png_error err;
        rtn_png_status status = encoder == FAST ? rtn_png_encode_fast(&p, &out, &size, &err)
                                                : rtn_png_encode(&p, &out, &size, &err);
        if (status != RTN_PNG_OK) {
            fprintf(stderr, "encode failed: %s\n", err.message);
            exit(1);
        }
        total += size;
        rtn_png_free(out);
    }
    *seconds = thread_seconds() - start;
    return total;
}

static int bench(int rounds, const char *set, int count, char **paths) {
    image *images;
    if (strcmp(set, "synthetic") == 0) {
        count = 12;
        images = calloc((size_t)count, sizeof *images);
        for (int i = 0; i < count; i++) {
            images[i].width = 256;
            images[i].height = 256;
            images[i].pixels = make_pixels(256, 256, 4, i % 6);
            if (i < 6) {
                for (size_t j = 3; j < 256 * 256 * 4; j += 4) images[i].pixels[j] = 255;
            }
        }
    } else {
        images = calloc((size_t)count, sizeof *images);
        for (int i = 0; i < count; i++) {
            if (!load(paths[i], &images[i])) {
                fprintf(stderr, "cannot read %s\n", paths[i]);
                return 1;
            }
        }
    }
    size_t pixels = 0;
    for (int i = 0; i < count; i++) {
        set_opaque(&images[i]);
        pixels += (size_t)images[i].width * images[i].height;
        rtn_png_encode_params p;
        params_for(&images[i], &p);
        uint8_t *out = NULL;
        size_t size = 0;
        rtn_png_error err;
        if (rtn_png_encode_fast(&p, &out, &size, &err) != RTN_PNG_OK ||
            !decode_matches(out, size, images[i].pixels, images[i].width, images[i].height, p.color_type, p.strip_filler,
                            NULL, NULL, 0)) {
            fprintf(stderr, "the fast encoder's file of image %d does not decode to its pixels\n", i);
            return 1;
        }
        rtn_png_free(out);
    }
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
    for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < ENCODERS; k++) {
            int encoder = round % 2 ? ENCODERS - 1 - k : k;
            double seconds;
            size_t bytes = run_encoder(encoder, images, count, c, &seconds);
            printf("%s %d %s %zu %.6f %zu\n", set, round, encoder_names[encoder], bytes, seconds, pixels);
        }
    }
    libdeflate_free_compressor(c);
    for (int i = 0; i < count; i++) free(images[i].pixels);
    free(images);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "check") == 0) return check(argc >= 3 ? argv[2] : NULL);
    if (argc >= 4 && strcmp(argv[1], "bench") == 0) return bench(atoi(argv[2]), argv[3], argc - 4, argv + 4);
    fprintf(stderr, "usage: encoder-bench check [DIR] | encoder-bench bench ROUNDS SET FILE...\n");
    return 2;
}
