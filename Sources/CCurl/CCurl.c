// libcurl, loaded on first use: see CCurl.h.

// curl.h's type-checking macros would rewrite the calls through the pointers below.
#define CURL_DISABLE_TYPECHECK
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// The functions podcast calls, each resolved from the loaded library into a pointer of the type
// curl.h declares for it (so a signature cannot be copied wrong).
#define PODCAST_CURL_FUNCTIONS(X)                                                                                      \
    X(curl_global_init)                                                                                                \
    X(curl_easy_init)                                                                                                  \
    X(curl_easy_cleanup)                                                                                               \
    X(curl_easy_perform)                                                                                               \
    X(curl_easy_strerror)                                                                                              \
    X(curl_easy_setopt)                                                                                                \
    X(curl_easy_getinfo)                                                                                               \
    X(curl_easy_pause)                                                                                                 \
    X(curl_easy_header)                                                                                                \
    X(curl_easy_nextheader)                                                                                            \
    X(curl_slist_append)                                                                                               \
    X(curl_slist_free_all)                                                                                             \
    X(curl_share_init)                                                                                                 \
    X(curl_share_setopt)                                                                                               \
    X(curl_share_cleanup)                                                                                              \
    X(curl_multi_init)                                                                                                 \
    X(curl_multi_setopt)                                                                                               \
    X(curl_multi_add_handle)                                                                                           \
    X(curl_multi_remove_handle)                                                                                        \
    X(curl_multi_perform)                                                                                              \
    X(curl_multi_poll)                                                                                                 \
    X(curl_multi_wakeup)                                                                                               \
    X(curl_multi_info_read)                                                                                            \
    X(curl_multi_cleanup)                                                                                              \
    X(curl_url)                                                                                                        \
    X(curl_url_set)                                                                                                    \
    X(curl_url_get)                                                                                                    \
    X(curl_url_cleanup)                                                                                                \
    X(curl_free)

static struct {
#define PODCAST_CURL_FIELD(name) __typeof__(&name) name;
    PODCAST_CURL_FUNCTIONS(PODCAST_CURL_FIELD)
#undef PODCAST_CURL_FIELD
} curl;

static pthread_once_t loading = PTHREAD_ONCE_INIT;

// What the dynamic loader said, for the error line.
static const char *why_not_loaded(void) {
    const char *error = dlerror();
    return error ? error : "unknown error";
}

static void load(void) {
    // The soname of every libcurl since 7.16 (2006); "libcurl.so" is the development link only.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "error: libcurl could not be loaded (%s); install it (Debian, Ubuntu: apt install libcurl4)\n",
                why_not_loaded());
        exit(1);
    }
#define PODCAST_CURL_RESOLVE(name)                                                                                     \
    if (!(curl.name = (__typeof__(curl.name))dlsym(library, #name))) {                                                 \
        fprintf(stderr, "error: the libcurl installed has no %s (%s); podcast needs libcurl 7.85 or later\n", #name,   \
                why_not_loaded());                                                                                     \
        exit(1);                                                                                                       \
    }
    PODCAST_CURL_FUNCTIONS(PODCAST_CURL_RESOLVE)
#undef PODCAST_CURL_RESOLVE
    // Once, before any other libcurl call: pthread_once holds every other thread's first call until it is done.
    CURLcode initialized = curl.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (initialized != CURLE_OK) {
        fprintf(stderr, "error: libcurl could not start (%s)\n", curl.curl_easy_strerror(initialized));
        exit(1);
    }
}

// The loaded library's functions; loads it on the first call.
#define CURL_API (pthread_once(&loading, load), &curl)

CURL *podcast_curl_easy_init(void) { return CURL_API->curl_easy_init(); }
void podcast_curl_easy_cleanup(CURL *handle) { CURL_API->curl_easy_cleanup(handle); }
CURLcode podcast_curl_easy_perform(CURL *handle) { return CURL_API->curl_easy_perform(handle); }
const char *podcast_curl_easy_strerror(CURLcode code) { return CURL_API->curl_easy_strerror(code); }

CURLcode podcast_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return CURL_API->curl_easy_setopt(handle, option, value);
}
CURLcode podcast_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return CURL_API->curl_easy_setopt(handle, option, value);
}
CURLcode podcast_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return CURL_API->curl_easy_setopt(handle, option, value);
}
CURLcode podcast_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return CURL_API->curl_easy_setopt(handle, option, value);
}
CURLcode podcast_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return CURL_API->curl_easy_setopt(handle, option, value);
}
CURLcode podcast_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, podcast_curl_data_callback value) {
    return CURL_API->curl_easy_setopt(handle, option, value);
}
CURLcode podcast_curl_easy_setopt_progress_callback(CURL *handle, CURLoption option,
                                                    podcast_curl_progress_callback value) {
    return CURL_API->curl_easy_setopt(handle, option, value);
}

CURLcode podcast_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return CURL_API->curl_easy_getinfo(handle, info, value);
}
CURLcode podcast_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return CURL_API->curl_easy_getinfo(handle, info, value);
}
CURLcode podcast_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return CURL_API->curl_easy_getinfo(handle, info, value);
}

CURLcode podcast_curl_easy_unpause(CURL *handle) { return CURL_API->curl_easy_pause(handle, CURLPAUSE_CONT); }

CURLHcode podcast_curl_easy_header(CURL *handle, const char *name, size_t index, unsigned int origin, int request,
                                   struct curl_header **header) {
    return CURL_API->curl_easy_header(handle, name, index, origin, request, header);
}
struct curl_header *podcast_curl_easy_nextheader(CURL *handle, unsigned int origin, int request,
                                                 struct curl_header *previous) {
    return CURL_API->curl_easy_nextheader(handle, origin, request, previous);
}

struct curl_slist *podcast_curl_slist_append(struct curl_slist *list, const char *string) {
    return CURL_API->curl_slist_append(list, string);
}
void podcast_curl_slist_free_all(struct curl_slist *list) { CURL_API->curl_slist_free_all(list); }

CURLSH *podcast_curl_share_init(void) { return CURL_API->curl_share_init(); }
CURLSHcode podcast_curl_share_setopt_long(CURLSH *handle, CURLSHoption option, long value) {
    return CURL_API->curl_share_setopt(handle, option, value);
}
CURLSHcode podcast_curl_share_cleanup(CURLSH *handle) { return CURL_API->curl_share_cleanup(handle); }

CURLM *podcast_curl_multi_init(void) { return CURL_API->curl_multi_init(); }
CURLMcode podcast_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return CURL_API->curl_multi_setopt(handle, option, value);
}
CURLMcode podcast_curl_multi_add_handle(CURLM *multi, CURL *handle) {
    return CURL_API->curl_multi_add_handle(multi, handle);
}
CURLMcode podcast_curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    return CURL_API->curl_multi_remove_handle(multi, handle);
}
CURLMcode podcast_curl_multi_perform(CURLM *multi, int *running) { return CURL_API->curl_multi_perform(multi, running); }
CURLMcode podcast_curl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout,
                                  int *ready) {
    return CURL_API->curl_multi_poll(multi, extra, count, timeout, ready);
}
CURLMcode podcast_curl_multi_wakeup(CURLM *multi) { return CURL_API->curl_multi_wakeup(multi); }
CURLMsg *podcast_curl_multi_info_read(CURLM *multi, int *queued) { return CURL_API->curl_multi_info_read(multi, queued); }
CURLMcode podcast_curl_multi_cleanup(CURLM *multi) { return CURL_API->curl_multi_cleanup(multi); }

CURLU *podcast_curl_url(void) { return CURL_API->curl_url(); }
CURLUcode podcast_curl_url_set(CURLU *url, CURLUPart part, const char *content, unsigned int flags) {
    return CURL_API->curl_url_set(url, part, content, flags);
}
CURLUcode podcast_curl_url_get(CURLU *url, CURLUPart part, char **content, unsigned int flags) {
    return CURL_API->curl_url_get(url, part, content, flags);
}
void podcast_curl_url_cleanup(CURLU *url) { CURL_API->curl_url_cleanup(url); }
void podcast_curl_free(void *pointer) { CURL_API->curl_free(pointer); }
