// SHA-256 through OpenSSL's one-context API: a stack context, no allocation, the CPU's SHA
// instructions when it has them. Deprecated in OpenSSL 3 but kept there for all 3.x releases.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

static inline void rcs_sha256(const unsigned char *data, size_t count, unsigned char digest[32]) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, count);
    SHA256_Final(digest, &context);
}
