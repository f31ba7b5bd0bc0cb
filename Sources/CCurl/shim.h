#ifndef PODCAST_CCURL_SHIM_H
#define PODCAST_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift
// cannot call. One typed wrapper per argument type; they compile to the same call.

typedef size_t (*podcast_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*podcast_curl_progress_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                              curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode podcast_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode podcast_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
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

static inline CURLcode podcast_curl_easy_setopt_progress_callback(CURL *handle, CURLoption option,
                                                                  podcast_curl_progress_callback value) {
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
static inline CURLcode podcast_curl_easy_unpause(CURL *handle) {
    return curl_easy_pause(handle, CURLPAUSE_CONT);
}

// What a write callback returns to pause its transfer; libcurl keeps the piece it offered.
static const size_t podcast_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

// curl_share_setopt is variadic too; the share options podcast sets all take a long.
static inline CURLSHcode podcast_curl_share_setopt_long(CURLSH *handle, CURLSHoption option, long value) {
    return curl_share_setopt(handle, option, value);
}

static inline CURLMcode podcast_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

#endif
