// libdeflate (Debian's libdeflate-dev, pkg-config name libdeflate): the whole-buffer inflate
// behind CPNG's fast path (Sources/CPNG/fastpath.c). Only CPNG's C code uses it.
#include <libdeflate.h>
