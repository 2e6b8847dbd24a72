#ifndef PDFGATE_CCURL_SHIM_H
#define PDFGATE_CCURL_SHIM_H
// libcurl's variadic curl_easy_setopt/getinfo cannot be called from Swift:
// these typed wrappers are the only way GatewayHTTPClient reaches them.
#include <curl/curl.h>

static inline CURLcode pdfgate_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pdfgate_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pdfgate_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pdfgate_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pdfgate_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pdfgate_curl_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode pdfgate_curl_setopt_read(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode pdfgate_curl_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode pdfgate_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode pdfgate_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode pdfgate_curl_setopt_seek(CURL *h, int (*f)(void *, curl_off_t, int)) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
static inline CURLcode pdfgate_curl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode pdfgate_curl_setopt_mime(CURL *h, curl_mime *m) { return curl_easy_setopt(h, CURLOPT_MIMEPOST, m); }
// CURL_GLOBAL_DEFAULT is a compound macro Swift does not import.
static inline CURLcode pdfgate_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
// CURLMsg's payload is a union; reading it in C keeps Swift away from union layout.
static inline CURLcode pdfgate_curl_msg_result(const CURLMsg *m) { return m->data.result; }
#endif
