#ifndef PODCAST_CTAGLIB_SHIM_H
#define PODCAST_CTAGLIB_SHIM_H

#include <taglib/tag_c.h>

// TagLib's C API says BOOL (int) and takes and returns plain char pointers; these wrappers give
// Swift the types it should see. Strings are UTF-8 (taglib_set_strings_unicode is on by default).

/// Opens `path` as a file of `type`; NULL when it cannot be opened. TagLib 1.13's C API knows no
/// Opus type: `podcast_taglib_open_by_name` opens such files by their extension instead.
static inline TagLib_File *podcast_taglib_open(const char *path, TagLib_File_Type type) {
    return taglib_file_new_type(path, type);
}

/// Opens `path` as the type its extension names (".opus"); NULL when it cannot be opened.
static inline TagLib_File *podcast_taglib_open_by_name(const char *path) {
    return taglib_file_new(path);
}

/// 1 when TagLib could read the file as the type it was opened as.
static inline int podcast_taglib_is_valid(const TagLib_File *file) {
    return taglib_file_is_valid(file) ? 1 : 0;
}

/// Writes the tags back into the file; 1 when it worked.
static inline int podcast_taglib_save(TagLib_File *file) {
    return taglib_file_save(file) ? 1 : 0;
}

/// Makes getters return strings the caller frees with `taglib_free`, instead of strings TagLib
/// keeps in one global list until `taglib_tag_free_strings` (which is not safe across threads).
/// ID3v2 text frames are written as UTF-8, which ID3v2.4 allows and every reader of it knows.
static inline void podcast_taglib_configure(void) {
    taglib_set_string_management_enabled(0);
    taglib_id3v2_set_default_text_encoding(TagLib_ID3v2_UTF8);
}

#endif
