#ifndef PODCAST_CFILESYSTEM_H
#define PODCAST_CFILESYSTEM_H

#include <stdint.h>

/// Starts writeback of `length` bytes of `fd` from `offset` without waiting for it
/// (sync_file_range with SYNC_FILE_RANGE_WRITE). Returns 0, or -1 with errno set.
int podcast_start_writeback(int fd, int64_t offset, int64_t length);

/// Renames `from` to `to` only if `to` does not exist (renameat2 with RENAME_NOREPLACE).
/// Returns 0, or -1 with errno set: EEXIST when `to` exists; EINVAL or ENOSYS when the file
/// system or kernel cannot do it.
int podcast_rename_noreplace(const char *from, const char *to);

/// 1 when the file system holding `path` keeps its data in memory only (tmpfs, ramfs), 0 when
/// it does not or cannot be told (statfs failed).
int podcast_file_system_in_memory(const char *path);

/// Copies `length` bytes of `in_fd` from `in_offset` to `out_fd` at its current position inside the
/// kernel (copy_file_range), without passing them through the caller's memory. Returns the bytes
/// copied (fewer at end of file), or -1 with errno set: EXDEV, EINVAL, ENOSYS or EOPNOTSUPP when
/// the file systems cannot do it.
int64_t podcast_copy_range(int in_fd, int64_t in_offset, int out_fd, int64_t length);

#endif
