#ifndef PODCAST_CTAGLIB_H
#define PODCAST_CTAGLIB_H

#include <taglib/tag_c.h>

// TagLib's C API, loaded on first use (dlopen): only `--tag` needs it, and mapping it and the C++
// library behind it at start-up cost every command about a millisecond. TagLib's C API says BOOL
// (int) and takes and returns plain char pointers; these wrappers give Swift the types it should
// see. Strings are UTF-8 (taglib_set_strings_unicode is on by default).

/// Why TagLib could not be loaded (one line), or NULL when it is loaded; loads it on the first call.
const char *podcast_taglib_load_error(void);

/// Opens `path` as a file of `type`; NULL when it cannot be opened. TagLib 1.13's C API knows no
/// Opus type: `podcast_taglib_open_by_name` opens such files by their extension instead.
TagLib_File *podcast_taglib_open(const char *path, TagLib_File_Type type);

/// Opens `path` as the type its extension names (".opus"); NULL when it cannot be opened.
TagLib_File *podcast_taglib_open_by_name(const char *path);

/// 1 when TagLib could read the file as the type it was opened as.
int podcast_taglib_is_valid(const TagLib_File *file);

/// The file's tag, which lives as long as the file.
TagLib_Tag *podcast_taglib_tag(const TagLib_File *file);

void podcast_taglib_set_title(TagLib_Tag *tag, const char *title);
void podcast_taglib_set_album(TagLib_Tag *tag, const char *album);
void podcast_taglib_set_artist(TagLib_Tag *tag, const char *artist);
void podcast_taglib_set_year(TagLib_Tag *tag, unsigned int year);
void podcast_taglib_set_track(TagLib_Tag *tag, unsigned int track);
void podcast_taglib_set_genre(TagLib_Tag *tag, const char *genre);
void podcast_taglib_set_comment(TagLib_Tag *tag, const char *comment);

/// Writes the tags back into the file; 1 when it worked.
int podcast_taglib_save(TagLib_File *file);

/// Closes the file and frees it and its tag.
void podcast_taglib_free(TagLib_File *file);

#endif
