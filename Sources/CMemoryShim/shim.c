// See include/CMemoryShim.h for why each function exists.
#include "CMemoryShim.h"

// <stdlib.h> pulls in <features.h>, which defines __GLIBC__ on glibc (and not on musl).
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#define RTN_HAVE_MALLINFO2 __GLIBC_PREREQ(2, 33)
#else
#define RTN_HAVE_MALLINFO2 0
#endif

#if RTN_HAVE_MALLINFO2
// mallinfo2 exists because mallinfo's `int` fields wrap above 2 GiB; pin that the fields
// we copy really are size_t so a header change cannot silently truncate them.
_Static_assert(sizeof(((struct mallinfo2 *)0)->uordblks) == sizeof(size_t),
               "mallinfo2 fields are expected to be size_t");
#endif

rtn_heap_info rtn_heap_info_read(void) {
    rtn_heap_info info = {0};
#if RTN_HAVE_MALLINFO2
    struct mallinfo2 m = mallinfo2();
    info.available = 1;
    info.arena = m.arena;
    info.ordblks = m.ordblks;
    info.hblks = m.hblks;
    info.hblkhd = m.hblkhd;
    info.fsmblks = m.fsmblks;
    info.uordblks = m.uordblks;
    info.fordblks = m.fordblks;
    info.keepcost = m.keepcost;
#endif
    return info;
}

int rtn_malloc_trim(size_t pad) {
#if defined(__GLIBC__)
    return malloc_trim(pad) ? 1 : 0;
#else
    (void)pad;
    return -1;
#endif
}
