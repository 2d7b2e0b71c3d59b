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

#endif /* RTN_CPNG_INTERNAL_H */
