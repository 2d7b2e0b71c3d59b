/* encode-settings: what each PNG filter and zlib setting costs on a set of thumbnails.
 *
 * Reads every PNG named on the command line to RGBA8 (libpng's simplified API), then encodes
 * them all with each setting through CPNG's own encoder (Sources/CPNG/writer.c, compiled in;
 * the color type chosen as PNGEncoder's `automatic` does: RGB when every pixel is opaque, RGBA
 * otherwise), ROUNDS times, the settings' order reversed every other round. Prints one line per
 * round and setting, for tools/encode-settings.sh to summarize:
 *   <round> <filter> <zlib> <bytes written, all images> <CPU seconds, all images>
 * The CPU time is the process's (CLOCK_PROCESS_CPUTIME_ID) around the encodes alone.
 * Build: cc -O2 -I Sources/CPNG/include encode-settings.c Sources/CPNG/writer.c Sources/CPNG/kernels.c -lpng16 -lz
 */
#include "CPNG.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rgba-image.h"

static const char *filter_names[] = {"none", "sub", "up", "average", "paeth", "adaptive"};
/* zlib settings: level with the standard search, or -1 for Z_RLE. */
static const int zlib_levels[] = {-1, 1, 3, 6, 9};

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Encodes every image with one setting; returns the bytes written and adds the CPU time. */
static size_t encode_all(const image *images, int count, rtn_png_filter filter, int level, double *seconds) {
    size_t total = 0;
    double start = cpu_seconds();
    for (int i = 0; i < count; i++) {
        rtn_png_encode_params p;
        memset(&p, 0, sizeof p);
        p.pixels = images[i].pixels;
        p.width = images[i].width;
        p.height = images[i].height;
        p.stride = (size_t)images[i].width * 4;
        p.bit_depth = 8;
        p.color_type = images[i].opaque ? 2 : 6;
        p.strip_filler = images[i].opaque;
        p.filter = filter;
        p.level = level < 0 ? 6 : level;
        p.run_length = level < 0;
        uint8_t *png = NULL;
        size_t size = 0;
        rtn_png_error err;
        if (rtn_png_encode(&p, &png, &size, &err) != RTN_PNG_OK) {
            fprintf(stderr, "encode-settings: %s\n", err.message);
            exit(1);
        }
        total += size;
        rtn_png_free(png);
    }
    *seconds = cpu_seconds() - start;
    return total;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s ROUNDS FILE.png...\n", argv[0]);
        return 2;
    }
    int rounds = atoi(argv[1]);
    int count = argc - 2;
    image *images = calloc((size_t)count, sizeof *images);
    for (int i = 0; i < count; i++) {
        if (!load(argv[i + 2], &images[i])) {
            fprintf(stderr, "encode-settings: cannot read %s\n", argv[i + 2]);
            return 1;
        }
    }
    const int filters = 6, levels = sizeof zlib_levels / sizeof zlib_levels[0];
    const int settings = filters * levels;
    double warm;
    encode_all(images, count, RTN_PNG_FILTER_ADAPTIVE, -1, &warm);
    for (int round = 0; round < rounds; round++) {
        for (int n = 0; n < settings; n++) {
            int s = round % 2 == 0 ? n : settings - 1 - n;
            int f = s / levels, level = zlib_levels[s % levels];
            double seconds;
            size_t bytes = encode_all(images, count, (rtn_png_filter)f, level, &seconds);
            char zlib[16];
            if (level < 0) snprintf(zlib, sizeof zlib, "rle");
            else snprintf(zlib, sizeof zlib, "%d", level);
            printf("%d %s %s %zu %.6f\n", round, filter_names[f], zlib, bytes, seconds);
        }
    }
    return 0;
}
