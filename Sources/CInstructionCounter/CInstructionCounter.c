#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CInstructionCounter.h"

int podcast_instruction_counter_open(void) {
    struct perf_event_attr attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.size = sizeof attributes;
    attributes.type = PERF_TYPE_HARDWARE;
    attributes.config = PERF_COUNT_HW_INSTRUCTIONS;
    attributes.exclude_kernel = 1;
    attributes.exclude_hv = 1;
    // This thread only, on whichever CPU it runs.
    return (int)syscall(SYS_perf_event_open, &attributes, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int64_t podcast_instruction_counter_read(int fd) {
    uint64_t count = 0;
    if (read(fd, &count, sizeof count) != (ssize_t)sizeof count) return -1;
    return (int64_t)count;
}
