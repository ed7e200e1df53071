#include <zlib.h>

// inflateInit2 and deflateInit2 are macros over the *_ functions; Swift cannot import them.
static inline int rcs_inflate_init2(z_streamp s, int windowBits) { return inflateInit2(s, windowBits); }
static inline int rcs_deflate_init2(z_streamp s, int level, int windowBits) {
    return deflateInit2(s, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
