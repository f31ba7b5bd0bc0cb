#ifndef PODCAST_CCURL_H
#define PODCAST_CCURL_H

#include <curl/curl.h>

// libcurl is loaded when podcast first uses it (dlopen), not when podcast starts: with the
// libraries it pulls in (TLS, SSH, LDAP, Kerberos, IDN, ...) it is two thirds of the start-up
// of a command that never touches the network (`status`, `episodes FILE`, `verify`, shell
// completion), about 4 ms of 6. Every libcurl function podcast calls goes through the wrappers
// below, and the first call of any of them loads libcurl and runs curl_global_init, once. When
// libcurl cannot be loaded, that call ends podcast with a one-line error (a broken installation,
// as the dynamic loader would have said at start-up).
//
// curl_easy_setopt, curl_easy_getinfo, curl_share_setopt and curl_multi_setopt are variadic,
// which Swift cannot call: one typed wrapper per argument type.

typedef size_t (*podcast_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*podcast_curl_progress_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                              curl_off_t ultotal, curl_off_t ulnow);

CURL *podcast_curl_easy_init(void);
void podcast_curl_easy_cleanup(CURL *handle);
CURLcode podcast_curl_easy_perform(CURL *handle);
const char *podcast_curl_easy_strerror(CURLcode code);

CURLcode podcast_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode podcast_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
// libcurl copies strings passed with setopt (since 7.17), so a temporary Swift string is fine.
CURLcode podcast_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode podcast_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
// Header lists are not copied: the caller keeps the list alive until the transfer ends.
CURLcode podcast_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode podcast_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, podcast_curl_data_callback value);
CURLcode podcast_curl_easy_setopt_progress_callback(CURL *handle, CURLoption option,
                                                    podcast_curl_progress_callback value);

CURLcode podcast_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode podcast_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode podcast_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);

// CURLPAUSE_CONT is built from other macros, which Swift does not import.
CURLcode podcast_curl_easy_unpause(CURL *handle);
// What a write callback returns to pause its transfer; libcurl keeps the piece it offered.
static const size_t podcast_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

CURLHcode podcast_curl_easy_header(CURL *handle, const char *name, size_t index, unsigned int origin, int request,
                                   struct curl_header **header);
struct curl_header *podcast_curl_easy_nextheader(CURL *handle, unsigned int origin, int request,
                                                 struct curl_header *previous);

struct curl_slist *podcast_curl_slist_append(struct curl_slist *list, const char *string);
void podcast_curl_slist_free_all(struct curl_slist *list);

CURLSH *podcast_curl_share_init(void);
// The share options podcast sets all take a long.
CURLSHcode podcast_curl_share_setopt_long(CURLSH *handle, CURLSHoption option, long value);
CURLSHcode podcast_curl_share_cleanup(CURLSH *handle);

CURLM *podcast_curl_multi_init(void);
CURLMcode podcast_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);
CURLMcode podcast_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode podcast_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode podcast_curl_multi_perform(CURLM *multi, int *running);
CURLMcode podcast_curl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout,
                                  int *ready);
CURLMcode podcast_curl_multi_wakeup(CURLM *multi);
CURLMsg *podcast_curl_multi_info_read(CURLM *multi, int *queued);
CURLMcode podcast_curl_multi_cleanup(CURLM *multi);

CURLU *podcast_curl_url(void);
CURLUcode podcast_curl_url_set(CURLU *url, CURLUPart part, const char *content, unsigned int flags);
CURLUcode podcast_curl_url_get(CURLU *url, CURLUPart part, char **content, unsigned int flags);
void podcast_curl_url_cleanup(CURLU *url);
void podcast_curl_free(void *pointer);

#endif
