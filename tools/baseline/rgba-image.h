/* rgba-image.h: an image read to RGBA8 by libpng's simplified API, for the encoder harnesses of
 * tools/baseline/ (encode-settings.c, encoder-bench.c), which include it after <png.h>. */
#ifndef RGBA_IMAGE_H
#define RGBA_IMAGE_H

typedef struct {
    uint8_t *pixels;
    uint32_t width, height;
    int opaque; /* every alpha byte 255: the encoders then write RGB, as PNGEncoder's `automatic` */
} image;

static void set_opaque(image *im) {
    im->opaque = 1;
    for (size_t i = 3; i < (size_t)im->width * im->height * 4; i += 4) {
        if (im->pixels[i] != 255) {
            im->opaque = 0;
            break;
        }
    }
}

/* Reads `path` into `out` (pixels malloc'd); 0 when libpng cannot. */
static int load(const char *path, image *out) {
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path)) return 0;
    png.format = PNG_FORMAT_RGBA;
    out->pixels = malloc(PNG_IMAGE_SIZE(png));
    if (out->pixels == NULL || !png_image_finish_read(&png, NULL, out->pixels, 0, NULL)) return 0;
    out->width = png.width;
    out->height = png.height;
    set_opaque(out);
    return 1;
}

#endif
