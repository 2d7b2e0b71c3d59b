#include "CChecksum.h"
#include <limits.h>
#include <zlib.h>

uint32_t rtn_crc32(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uLong value = crc;
    // zlib takes a uInt count: feed larger buffers in steps.
    while (count > 0) {
        uInt step = count > (size_t)UINT_MAX ? UINT_MAX : (uInt)count;
        value = crc32(value, p, step);
        p += step;
        count -= step;
    }
    return (uint32_t)value;
}
