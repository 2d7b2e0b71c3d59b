// ISA-L's igzip (Debian's libisal-dev, pkg-config name libisal): the streaming inflate behind
// CPNG's streamed rows (Sources/CPNG/fastpath.c), about twice zlib's speed with the same
// bounded memory. Only CPNG's C code uses it.
#include <isa-l/igzip_lib.h>
