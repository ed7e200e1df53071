#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic; Swift imports neither.
// One typed wrapper per argument kind, as in swift-corelibs-foundation's CFURLSessionInterface.
static inline CURLcode rcs_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rcs_curl_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rcs_curl_setopt_write(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode rcs_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }

// CURLOPT_XFERINFOFUNCTION: returning non-zero aborts the transfer (used for cancellation).
static inline CURLcode rcs_curl_setopt_xferinfo(CURL *h, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}

// CURL_GLOBAL_DEFAULT is a macro expression Swift may not import.
static inline CURLcode rcs_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

// CURLMsg.data is an anonymous union; read the result of a finished transfer here.
static inline CURLcode rcs_curl_msg_result(const CURLMsg *m) { return m->data.result; }
