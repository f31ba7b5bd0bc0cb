// Glibc declares sync_file_range and renameat2 only under _GNU_SOURCE, which Swift's Glibc
// module does not define; nor does that module export statfs.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "CFileSystem.h"

int podcast_start_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE);
}

int podcast_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int podcast_file_system_in_memory(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return 0;
    return info.f_type == TMPFS_MAGIC || info.f_type == RAMFS_MAGIC;
}

int64_t podcast_copy_range(int in_fd, int64_t in_offset, int out_fd, int64_t length) {
    __off64_t offset = in_offset;
    return copy_file_range(in_fd, &offset, out_fd, NULL, (size_t)length, 0);
}
