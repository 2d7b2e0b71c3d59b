// Helpers shared by the CPNG reader and writer (not part of the public header).
#ifndef RTN_CPNG_INTERNAL_H
#define RTN_CPNG_INTERNAL_H

#include "CPNG.h"

#include <string.h>

static inline void rtn_copy_message(char *dst, size_t cap, const char *msg) {
    if (cap == 0) return;
    if (msg == NULL) msg = "unknown libpng error";
    size_t n = strlen(msg);
    if (n >= cap) n = cap - 1;
    memcpy(dst, msg, n);
    dst[n] = '\0';
}

static inline void rtn_set_error(rtn_png_error *err, rtn_png_status status, int sys_errno,
                          const char *msg) {
    if (err == NULL) return;
    err->status = status;
    err->sys_errno = sys_errno;
    rtn_copy_message(err->message, sizeof err->message, msg);
}

// Bytes a pixel of an 8-bit image of PNG color type `color_type` (0 for a type PNG lacks).
static inline size_t rtn_png_channels(int color_type) {
    static const uint8_t channels[7] = {1, 0, 3, 1, 2, 0, 4};
    return color_type >= 0 && color_type <= 6 ? channels[color_type] : 0;
}

// The filters rtn_png_filter_row may choose for `p` (a bit per filter type): `p->filter`, or all
// five, less those that need a row above (one row) or a pixel to the left (one column).
static inline unsigned rtn_png_allowed_filters(const rtn_png_encode_params *p) {
    unsigned allowed = p->filter == RTN_PNG_FILTER_ADAPTIVE ? 0x1fu : 1u << p->filter;
    if (p->height == 1) allowed &= ~(unsigned)((1 << 2) | (1 << 3) | (1 << 4));  // no row above
    if (p->width == 1) allowed &= ~(unsigned)((1 << 1) | (1 << 3) | (1 << 4));   // no pixel left
    return allowed == 0 ? 1 : allowed;
}

// Row `y` of `p` as the file stores it: the caller's row, or with `strip_filler` its RGBA8
// pixels packed to RGB into whichever of `a` and `b` is not `prev` (the row above, kept for the
// filter). Four bytes copied a pixel, the fourth overwritten by the next pixel's, three for
// the last: one load and one store a pixel, nothing written past the row.
static inline const uint8_t *rtn_png_source_row(const rtn_png_encode_params *p, uint32_t y, const uint8_t *prev,
                                                uint8_t *a, uint8_t *b) {
    const uint8_t *row = p->pixels + (size_t)y * p->stride;
    if (!p->strip_filler) return row;
    uint8_t *dst = prev == b ? a : b;
    uint32_t x = 0;
    for (; x + 1 < p->width; x++) memcpy(dst + 3 * x, row + 4 * x, 4);
    memcpy(dst + 3 * x, row + 4 * x, 3);
    return dst;
}

#endif /* RTN_CPNG_INTERNAL_H */
