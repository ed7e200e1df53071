// SHA-256 through OpenSSL's one-context API: a stack context, no allocation, the CPU's SHA
// instructions when it has them. Deprecated in OpenSSL 3 but kept there for all 3.x releases.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>

static inline void rcs_sha256(const unsigned char *data, size_t count, unsigned char digest[32]) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, count);
    SHA256_Final(digest, &context);
}

// HMAC-SHA256 (webhook signatures): HMAC() is one call, a macro-free prototype Swift imports, but
// its EVP_MD argument comes from a function, and the length out-parameter is an unsigned int.
static inline int rcs_hmac_sha256(const unsigned char *key, size_t key_len, const unsigned char *data, size_t count,
                                  unsigned char digest[32]) {
    unsigned int length = 0;
    return HMAC(EVP_sha256(), key, (int)key_len, data, count, digest, &length) != NULL && length == 32;
}

// Signature checks of ID tokens (JWS RS256 and ES256) against a provider's JSON web keys.

/// A public key from its parameters: RSA (n, e big-endian) or an EC P-256 point (x, y, 32 bytes
/// each). NULL when the numbers do not make a key. Free with `rcs_free_key`.
static inline EVP_PKEY *rcs_public_key(int is_ec, const unsigned char *a, size_t a_len,
                                       const unsigned char *b, size_t b_len) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *build = OSSL_PARAM_BLD_new();
    BIGNUM *n = NULL, *e = NULL;
    unsigned char point[65];
    int ok = build != NULL;
    if (ok && is_ec) {
        ok = a_len == 32 && b_len == 32;
        if (ok) {
            point[0] = 0x04;  // uncompressed
            for (size_t i = 0; i < 32; i++) { point[1 + i] = a[i]; point[33 + i] = b[i]; }
            ok = OSSL_PARAM_BLD_push_utf8_string(build, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0)
                && OSSL_PARAM_BLD_push_octet_string(build, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point);
        }
    } else if (ok) {
        n = BN_bin2bn(a, (int)a_len, NULL);
        e = BN_bin2bn(b, (int)b_len, NULL);
        ok = n != NULL && e != NULL && OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_N, n)
            && OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_E, e);
    }
    OSSL_PARAM *params = ok ? OSSL_PARAM_BLD_to_param(build) : NULL;
    EVP_PKEY_CTX *context = params ? EVP_PKEY_CTX_new_from_name(NULL, is_ec ? "EC" : "RSA", NULL) : NULL;
    if (context == NULL || EVP_PKEY_fromdata_init(context) <= 0
        || EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) <= 0) {
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(build);
    BN_free(n);
    BN_free(e);
    return key;
}

static inline void rcs_free_key(EVP_PKEY *key) { EVP_PKEY_free(key); }

/// 1 when `signature` signs `data` with SHA-256 under `key`: PKCS #1 v1.5 for RSA, and for EC the
/// JWS form (r and s, 32 bytes each), turned into DER here. 0 otherwise.
static inline int rcs_verify_sha256(EVP_PKEY *key, int is_ec, const unsigned char *data, size_t data_len,
                                    const unsigned char *signature, size_t signature_len) {
    unsigned char *der = NULL;
    int der_len = 0;
    if (is_ec) {
        if (signature_len != 64) return 0;
        ECDSA_SIG *sig = ECDSA_SIG_new();
        BIGNUM *r = BN_bin2bn(signature, 32, NULL), *s = BN_bin2bn(signature + 32, 32, NULL);
        if (sig == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(sig, r, s) != 1) {
            BN_free(r);
            BN_free(s);
            ECDSA_SIG_free(sig);
            return 0;
        }
        der_len = i2d_ECDSA_SIG(sig, &der);
        ECDSA_SIG_free(sig);
        if (der_len <= 0) return 0;
        signature = der;
        signature_len = (size_t)der_len;
    }
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int ok = context != NULL && EVP_DigestVerifyInit(context, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestVerify(context, signature, signature_len, data, data_len) == 1;
    EVP_MD_CTX_free(context);
    OPENSSL_free(der);
    return ok;
}
