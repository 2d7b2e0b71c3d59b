/* inflate-floor: libdeflate's inflate alone, the floor of any PNG decoder that inflates.
 *
 * For each PNG file given: reads the whole file, concatenates its IDAT chunks' data (the zlib
 * stream) and inflates it with libdeflate_zlib_decompress (Adler-32 checked, as the fast path's
 * libdeflate_zlib_decompress_ex checks it) into a buffer of exactly the filtered size that IHDR
 * gives (height rows of one filter byte plus the row's bytes; the seven passes' rows when
 * interlaced). Nothing else: no chunk CRC, no unfilter, no expansion to RGBA. A stream that does
 * not inflate to exactly that size fails. The printed bytes are the filtered bytes. Output and
 * options: decode-harness.h.
 * Build: cc -O2 -o inflate-floor inflate-floor.c -ldeflate
 */
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Bytes of the filtered image: per row, a filter byte and ceil(width * bits per pixel / 8). */
static size_t filtered_size(uint32_t width, uint32_t height, unsigned bits, int interlaced) {
    if (!interlaced) return (size_t)height * (1 + ((size_t)width * bits + 7) / 8);
    static const unsigned x0[7] = {0, 4, 0, 2, 0, 1, 0}, dx[7] = {8, 8, 4, 4, 2, 2, 1};
    static const unsigned y0[7] = {0, 0, 4, 0, 2, 0, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};
    size_t total = 0;
    for (int pass = 0; pass < 7; pass++) {
        size_t w = width > x0[pass] ? (width - x0[pass] + dx[pass] - 1) / dx[pass] : 0;
        size_t h = height > y0[pass] ? (height - y0[pass] + dy[pass] - 1) / dy[pass] : 0;
        if (w > 0 && h > 0) total += h * (1 + (w * bits + 7) / 8);
    }
    return total;
}

static unsigned char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    unsigned char *data = NULL;
    if (fseek(file, 0, SEEK_END) == 0) {
        long end = ftell(file);
        if (end > 0 && fseek(file, 0, SEEK_SET) == 0 && (data = malloc((size_t)end)) != NULL &&
            fread(data, 1, (size_t)end, file) != (size_t)end) {
            free(data);
            data = NULL;
        }
        *length = end > 0 ? (size_t)end : 0;
    }
    fclose(file);
    return data;
}

static unsigned char *decode(const char *path, size_t *size) {
    size_t length = 0;
    unsigned char *data = read_file(path, &length);
    if (data == NULL) {
        perror(path);
        return NULL;
    }
    static const unsigned char signature[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    const char *problem = NULL;
    if (length < 8 + 25 || memcmp(data, signature, 8) != 0 || memcmp(data + 12, "IHDR", 4) != 0) problem = "not a PNG";
    /* Two walks over the chunks: the IDAT bytes' total, then their copy into one stream. */
    size_t stream_bytes = 0;
    unsigned char *stream = NULL;
    for (int walk = 0; walk < 2 && problem == NULL; walk++) {
        size_t at = 8, gathered = 0;
        while (problem == NULL && at + 12 <= length) {
            uint32_t chunk = be32(data + at);
            if (chunk > length - at - 12) problem = "a chunk runs past the end";
            else if (memcmp(data + at + 4, "IDAT", 4) == 0) {
                if (walk == 1) memcpy(stream + gathered, data + at + 8, chunk);
                gathered += chunk;
            } else if (memcmp(data + at + 4, "IEND", 4) == 0) break;
            at += (size_t)chunk + 12;
        }
        if (walk == 0) {
            stream_bytes = gathered;
            if (gathered == 0 && problem == NULL) problem = "no IDAT";
            else if (problem == NULL && (stream = malloc(gathered)) == NULL) problem = "out of memory";
        }
    }
    unsigned char *filtered = NULL;
    if (problem == NULL) {
        const unsigned char *ihdr = data + 16;
        static const unsigned channels[7] = {1, 0, 3, 1, 2, 0, 4};
        unsigned color = ihdr[9], bits = color < 7 ? channels[color] * ihdr[8] : 0;
        if (bits == 0) problem = "unknown color type";
        else {
            *size = filtered_size(be32(ihdr), be32(ihdr + 4), bits, ihdr[12] != 0);
            struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
            filtered = inflater != NULL ? malloc(*size) : NULL;
            if (filtered == NULL) problem = "out of memory";
            else if (libdeflate_zlib_decompress(inflater, stream, stream_bytes, filtered, *size, NULL) != LIBDEFLATE_SUCCESS) {
                problem = "the image data does not inflate to exactly the filtered size";
            }
            libdeflate_free_decompressor(inflater);
        }
    }
    free(stream);
    free(data);
    if (problem != NULL) {
        fprintf(stderr, "%s: %s\n", path, problem);
        free(filtered);
        return NULL;
    }
    return filtered;
}

static void release(unsigned char *pixels) { free(pixels); }

#include "decode-harness.h"
