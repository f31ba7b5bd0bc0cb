#ifndef PODCAST_CCURL_SHIM_H
#define PODCAST_CCURL_SHIM_H

// curl.h's type-checking macros would wrap the variadic calls below in statement expressions
// that check each option's argument type: the typed wrappers already fix the type.
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

// Swift calls libcurl directly, except for what it cannot import: curl_easy_setopt,
// curl_easy_getinfo, curl_share_setopt and curl_multi_setopt are variadic (one typed wrapper per
// argument type below), and CURLPAUSE_CONT and CURL_WRITEFUNC_PAUSE are macros built from casts
// or other macros.
//
// No curl_global_init call: curl_easy_init makes it, once, under libcurl's own lock (libcurl
// 7.84 and later; podcast needs 7.85 for CURLOPT_PROTOCOLS_STR), before any handle can transfer.

/// What a write or header callback is: `size * count` bytes at `data`; returns the bytes taken.
typedef size_t (*podcast_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);

static inline CURLcode podcast_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
// libcurl copies strings passed with setopt (since 7.17), so a temporary Swift string is fine.
static inline CURLcode podcast_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode podcast_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
// Header lists are not copied: the caller keeps the list alive until the transfer ends.
static inline CURLcode podcast_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode podcast_curl_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                              podcast_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode podcast_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode podcast_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode podcast_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// CURLPAUSE_CONT is built from other macros, which Swift does not import.
static inline CURLcode podcast_curl_easy_unpause(CURL *handle) { return curl_easy_pause(handle, CURLPAUSE_CONT); }
// What a write callback returns to pause its transfer; libcurl keeps the piece it offered.
static const size_t podcast_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

// The share options podcast sets all take a long.
static inline CURLSHcode podcast_curl_share_setopt_long(CURLSH *handle, CURLSHoption option, long value) {
    return curl_share_setopt(handle, option, value);
}

static inline CURLMcode podcast_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

#endif
