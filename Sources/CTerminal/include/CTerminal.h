#ifndef PODCAST_CTERMINAL_H
#define PODCAST_CTERMINAL_H

#include <stdint.h>

/// Terminal columns taken by one Unicode scalar: 0, 1 or 2; -1 for a non-printable one.
int podcast_wcwidth(uint32_t scalar);

/// Selects the C.UTF-8 character type so wcwidth knows wide and combining characters.
void podcast_use_utf8_ctype(void);

/// The lines and columns of the terminal on `fd`, read together (one TIOCGWINSZ, so a resize
/// cannot fall between them); 0 for each when `fd` is not a terminal or it reports none.
void podcast_terminal_size(int fd, int *lines, int *columns);

/// Opens a pseudo-terminal of `rows` x `columns` in raw mode (bytes pass unchanged); its two
/// ends go to `controller` and `device`. Returns 0, or -1 with errno set. For tests.
int podcast_open_pseudo_terminal(int rows, int columns, int *controller, int *device);

/// Sets the size the terminal on `fd` reports. Returns 0, or -1 with errno set. For tests.
int podcast_set_terminal_size(int fd, int rows, int columns);

#endif
