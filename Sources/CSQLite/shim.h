#ifndef PODCAST_CSQLITE_SHIM_H
#define PODCAST_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// It tells SQLite to copy the bound text or blob before the call returns.
static inline int podcast_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int podcast_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

// sqlite3_config is variadic, which Swift cannot call. Memory statistics cost a global mutex on
// every allocation and podcast never reads them; this must run before SQLite is first used
// (it returns SQLITE_MISUSE, harmlessly, afterwards).
static inline int podcast_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
