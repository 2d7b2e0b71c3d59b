/* png-simplified-decode: the C baseline for decode throughput.
 *
 * Decodes each PNG file given to RGBA8 with libpng's simplified API (png_image_begin_read_from_file,
 * png_image_finish_read), the way a plain C program would, and prints one line per file:
 *   <decoded bytes> <seconds> <a bit of the pixels>
 * The time covers the whole decode from the file, including the output allocation, which is
 * what `retention inspect --decode` times for our decoder.
 * Build: cc -O2 -o png-simplified-decode png-simplified-decode.c -lpng16
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int decode(const char *path) {
    double start = now();
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        fprintf(stderr, "%s: %s\n", path, image.message);
        return 1;
    }
    image.format = PNG_FORMAT_RGBA;
    size_t size = PNG_IMAGE_SIZE(image);
    png_bytep buffer = malloc(size);
    if (buffer == NULL || !png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        fprintf(stderr, "%s: %s\n", path, buffer == NULL ? "out of memory" : image.message);
        free(buffer);
        png_image_free(&image);
        return 1;
    }
    double elapsed = now() - start;
    /* Touch the result so the decode cannot be elided. */
    unsigned sum = 0;
    for (size_t i = 0; i < size; i += 4096) sum += buffer[i];
    printf("%zu %.6f %u\n", size, elapsed, sum & 1);
    free(buffer);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.png...\n", argv[0]);
        return 2;
    }
    /* One process decodes every file given, one line each, as `retention inspect --decode
     * FILES...` does: the same process shape on both sides of a comparison. */
    int status = 0;
    for (int i = 1; i < argc; i++) status |= decode(argv[i]);
    return status;
}
