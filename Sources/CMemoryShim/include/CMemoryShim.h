// CMemoryShim: the glibc allocator calls MemoryProbe needs and Swift cannot import directly.
//
// Why this target exists: glibc's <malloc.h> is not part of Swift's Glibc module, so
// `mallinfo2` and `malloc_trim` are not visible from Swift. Every symbol here carries the
// `rtn_` prefix so nothing collides with the C library or another shim.
#ifndef RTN_C_MEMORY_SHIM_H
#define RTN_C_MEMORY_SHIM_H

#include <stddef.h>

/// The fields of glibc's `struct mallinfo2` that MemoryProbe reports, summed over all arenas.
///
/// Why a struct of our own: it keeps <malloc.h> (and its unprefixed names) out of Swift,
/// and it carries `available` so a build against a C library without `mallinfo2`
/// reports "unavailable" instead of zeros.
typedef struct rtn_heap_info {
    /// 1 when the fields below came from `mallinfo2`, 0 when it is not available.
    int available;
    /// `arena`: bytes obtained from the system with sbrk/heap mmap (not counting large mmapped blocks).
    size_t arena;
    /// `ordblks`: number of free chunks.
    size_t ordblks;
    /// `hblks`: number of blocks allocated with their own mmap.
    size_t hblks;
    /// `hblkhd`: bytes in blocks allocated with their own mmap.
    size_t hblkhd;
    /// `fsmblks`: bytes in free fastbin chunks.
    size_t fsmblks;
    /// `uordblks`: bytes in chunks in use (including per-chunk headers and tcache-held chunks).
    size_t uordblks;
    /// `fordblks`: bytes in free chunks the allocator holds.
    size_t fordblks;
    /// `keepcost`: bytes at the top of the main heap that `malloc_trim` could give back.
    size_t keepcost;
} rtn_heap_info;

/// Reads glibc's `mallinfo2()`.
///
/// Why a shim: `mallinfo2` lives in <malloc.h>, which Swift's Glibc module does not import.
/// Cost: takes each arena's lock in turn and walks its free lists (about 150 ns for a small heap).
rtn_heap_info rtn_heap_info_read(void);

/// Calls glibc's `malloc_trim(pad)`; returns 1 if memory was given back to the system, 0 if
/// not, and -1 when `malloc_trim` is not available.
///
/// Why a shim: `malloc_trim` lives in <malloc.h>, which Swift's Glibc module does not import.
int rtn_malloc_trim(size_t pad);

#endif /* RTN_C_MEMORY_SHIM_H */
