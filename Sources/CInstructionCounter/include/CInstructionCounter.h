#ifndef PODCAST_CINSTRUCTIONCOUNTER_H
#define PODCAST_CINSTRUCTIONCOUNTER_H

#include <stdint.h>

/// Opens a counter of the instructions the calling thread retires in user space (perf_event_open,
/// which Swift cannot call: it has no libc wrapper and syscall(2) is variadic), started at once.
/// Returns its descriptor, or -1 with errno set where the kernel or its settings refuse it.
int podcast_instruction_counter_open(void);

/// The instructions counted so far by the counter `fd`, or -1 with errno set.
int64_t podcast_instruction_counter_read(int fd);

#endif
