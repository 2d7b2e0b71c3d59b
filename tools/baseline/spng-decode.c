/* spng-decode: libspng as a decode peer of tools/decode-vs-libpng.sh --corpus.
 *
 * Decodes each PNG file given to RGBA8 with libspng and its defaults (chunk CRCs checked),
 * reading from the file, with tRNS applied (SPNG_DECODE_TRNS) as libpng's simplified API applies
 * it. Output and options: decode-harness.h.
 * Build: cc -O2 -o spng-decode spng-decode.c -lspng
 */
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char *decode(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        perror(path);
        return NULL;
    }
    spng_ctx *ctx = spng_ctx_new(0);
    unsigned char *pixels = NULL;
    int error = ctx == NULL ? SPNG_EMEM : spng_set_png_file(ctx, file);
    if (!error) error = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, size);
    if (!error) {
        pixels = malloc(*size);
        error = pixels == NULL ? SPNG_EMEM : spng_decode_image(ctx, pixels, *size, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
    }
    spng_ctx_free(ctx);
    fclose(file);
    if (error) {
        fprintf(stderr, "%s: %s\n", path, spng_strerror(error));
        free(pixels);
        return NULL;
    }
    return pixels;
}

static void release(unsigned char *pixels) { free(pixels); }

#include "decode-harness.h"
