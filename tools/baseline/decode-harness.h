/* decode-harness.h: the part every decode harness of tools/baseline/ shares, so that each
 * decoder is timed and checked the same way. A harness defines, before including this file,
 *   static unsigned char *decode(const char *path, size_t *size);
 *       the whole decode of one file from its path, the output buffer allocated inside; NULL
 *       (after a message on standard error) when the file fails;
 *   static void release(unsigned char *pixels);   frees what decode returned;
 * and this file's main() runs it over every file given, in one process (as `retention inspect
 * --decode FILES...` does), printing one line per file:
 *   <decoded bytes> <seconds> <a bit of the pixels>
 * The seconds cover decode() only; the bit (a sum of every 4096th byte) makes the output used,
 * so no decode can be elided. With `--dump DIR` first, the N-th file's output is also written
 * to DIR/N.rgba, to compare decoders byte for byte (never while timing). Exit 1 when any file
 * fails, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double harness_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int harness_dump(const char *dir, int index, const unsigned char *pixels, size_t size) {
    char name[4096];
    snprintf(name, sizeof name, "%s/%d.rgba", dir, index);
    FILE *out = fopen(name, "wb");
    int failed = out == NULL || fwrite(pixels, 1, size, out) != size;
    if (out != NULL && fclose(out) != 0) failed = 1;
    if (failed) fprintf(stderr, "%s: cannot write\n", name);
    return failed;
}

static int harness_one(const char *path, const char *dir, int index) {
    size_t size = 0;
    double start = harness_now();
    unsigned char *pixels = decode(path, &size);
    double elapsed = harness_now() - start;
    if (pixels == NULL) return 1;
    unsigned sum = 0;
    for (size_t i = 0; i < size; i += 4096) sum += pixels[i];
    printf("%zu %.6f %u\n", size, elapsed, sum & 1);
    int status = dir != NULL ? harness_dump(dir, index, pixels, size) : 0;
    release(pixels);
    return status;
}

int main(int argc, char **argv) {
    const char *dir = NULL;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--dump") == 0) {
        dir = argv[2];
        first = 3;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: %s [--dump DIR] FILE.png...\n", argv[0]);
        return 2;
    }
    int status = 0;
    for (int i = first; i < argc; i++) status |= harness_one(argv[i], dir, i - first + 1);
    return status;
}
