// TagLib's C API, loaded on first use: see CTagLib.h.
#include "CTagLib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define PODCAST_TAGLIB_FUNCTIONS(X)                                                                                    \
    X(taglib_set_string_management_enabled)                                                                            \
    X(taglib_id3v2_set_default_text_encoding)                                                                          \
    X(taglib_file_new)                                                                                                 \
    X(taglib_file_new_type)                                                                                            \
    X(taglib_file_is_valid)                                                                                            \
    X(taglib_file_tag)                                                                                                 \
    X(taglib_tag_set_title)                                                                                            \
    X(taglib_tag_set_album)                                                                                            \
    X(taglib_tag_set_artist)                                                                                           \
    X(taglib_tag_set_year)                                                                                             \
    X(taglib_tag_set_track)                                                                                            \
    X(taglib_tag_set_genre)                                                                                            \
    X(taglib_tag_set_comment)                                                                                          \
    X(taglib_file_save)                                                                                                \
    X(taglib_file_free)

static struct {
#define PODCAST_TAGLIB_FIELD(name) __typeof__(&name) name;
    PODCAST_TAGLIB_FUNCTIONS(PODCAST_TAGLIB_FIELD)
#undef PODCAST_TAGLIB_FIELD
} taglib;

static pthread_once_t loading = PTHREAD_ONCE_INIT;
static char load_error[256];

static void load(void) {
    // TagLib 1's C binding, else TagLib 2's (the same C API).
    void *library = dlopen("libtag_c.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libtag_c.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "TagLib could not be loaded (%s); install it (Debian, Ubuntu: apt install libtagc0)",
                 why ? why : "unknown error");
        return;
    }
#define PODCAST_TAGLIB_RESOLVE(name)                                                                                   \
    if (!(taglib.name = (__typeof__(taglib.name))dlsym(library, #name))) {                                             \
        snprintf(load_error, sizeof load_error, "the TagLib installed has no %s", #name);                              \
        return;                                                                                                        \
    }
    PODCAST_TAGLIB_FUNCTIONS(PODCAST_TAGLIB_RESOLVE)
#undef PODCAST_TAGLIB_RESOLVE
    // Getters return strings the caller frees, instead of strings TagLib keeps in one global list
    // until taglib_tag_free_strings (which is not safe across threads). ID3v2 text frames are
    // written as UTF-8, which ID3v2.4 allows and every reader of it knows.
    taglib.taglib_set_string_management_enabled(0);
    taglib.taglib_id3v2_set_default_text_encoding(TagLib_ID3v2_UTF8);
}

const char *podcast_taglib_load_error(void) {
    pthread_once(&loading, load);
    return load_error[0] ? load_error : NULL;
}

// The functions below are called only once podcast_taglib_load_error said NULL.
TagLib_File *podcast_taglib_open(const char *path, TagLib_File_Type type) { return taglib.taglib_file_new_type(path, type); }
TagLib_File *podcast_taglib_open_by_name(const char *path) { return taglib.taglib_file_new(path); }
int podcast_taglib_is_valid(const TagLib_File *file) { return taglib.taglib_file_is_valid(file) ? 1 : 0; }
TagLib_Tag *podcast_taglib_tag(const TagLib_File *file) { return taglib.taglib_file_tag(file); }
void podcast_taglib_set_title(TagLib_Tag *tag, const char *title) { taglib.taglib_tag_set_title(tag, title); }
void podcast_taglib_set_album(TagLib_Tag *tag, const char *album) { taglib.taglib_tag_set_album(tag, album); }
void podcast_taglib_set_artist(TagLib_Tag *tag, const char *artist) { taglib.taglib_tag_set_artist(tag, artist); }
void podcast_taglib_set_year(TagLib_Tag *tag, unsigned int year) { taglib.taglib_tag_set_year(tag, year); }
void podcast_taglib_set_track(TagLib_Tag *tag, unsigned int track) { taglib.taglib_tag_set_track(tag, track); }
void podcast_taglib_set_genre(TagLib_Tag *tag, const char *genre) { taglib.taglib_tag_set_genre(tag, genre); }
void podcast_taglib_set_comment(TagLib_Tag *tag, const char *comment) { taglib.taglib_tag_set_comment(tag, comment); }
int podcast_taglib_save(TagLib_File *file) { return taglib.taglib_file_save(file) ? 1 : 0; }
void podcast_taglib_free(TagLib_File *file) { taglib.taglib_file_free(file); }
