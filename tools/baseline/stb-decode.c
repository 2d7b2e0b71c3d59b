/* stb-decode: stb_image as a decode peer of tools/decode-vs-libpng.sh --corpus.
 *
 * Decodes each PNG file given to RGBA8 (four channels requested) with stbi_load and stb_image's
 * defaults, from the file. Debian's libstb-dev ships the headers in /usr/include/stb and the
 * implementation already compiled, in libstb.so, so this links that library rather than
 * compiling the implementation in. Output and options: decode-harness.h.
 * Build: cc -O2 -I/usr/include/stb -o stb-decode stb-decode.c -lstb
 */
#include <stb_image.h>
#include <stdio.h>

static unsigned char *decode(const char *path, size_t *size) {
    int width = 0, height = 0, channels = 0;
    unsigned char *pixels = stbi_load(path, &width, &height, &channels, 4);
    if (pixels == NULL) {
        fprintf(stderr, "%s: %s\n", path, stbi_failure_reason());
        return NULL;
    }
    *size = (size_t)width * (size_t)height * 4;
    return pixels;
}

static void release(unsigned char *pixels) { stbi_image_free(pixels); }

#include "decode-harness.h"
