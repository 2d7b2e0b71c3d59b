/* png-simplified-decode: the C baseline for decode throughput.
 *
 * Decodes each PNG file given to RGBA8 with libpng's simplified API (png_image_begin_read_from_file,
 * png_image_finish_read), the way a plain C program would, with libpng's defaults. The time
 * covers the whole decode from the file, including the output allocation, which is what
 * `retention inspect --decode` times for our decoder. Output and options: decode-harness.h.
 * Build: cc -O2 -o png-simplified-decode png-simplified-decode.c -lpng16
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *decode(const char *path, size_t *size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        fprintf(stderr, "%s: %s\n", path, image.message);
        return NULL;
    }
    image.format = PNG_FORMAT_RGBA;
    *size = PNG_IMAGE_SIZE(image);
    png_bytep buffer = malloc(*size);
    if (buffer == NULL || !png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        fprintf(stderr, "%s: %s\n", path, buffer == NULL ? "out of memory" : image.message);
        free(buffer);
        png_image_free(&image);
        return NULL;
    }
    return buffer;
}

static void release(unsigned char *pixels) { free(pixels); }

#include "decode-harness.h"
