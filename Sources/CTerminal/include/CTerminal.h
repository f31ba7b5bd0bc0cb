#ifndef PODCAST_CTERMINAL_H
#define PODCAST_CTERMINAL_H

#include <stdint.h>

/// Terminal columns taken by one Unicode scalar: 0, 1 or 2; -1 for a non-printable one.
int podcast_wcwidth(uint32_t scalar);

/// Selects the C.UTF-8 character type so wcwidth knows wide and combining characters.
void podcast_use_utf8_ctype(void);

/// Columns of the terminal on `fd`, or 0 when `fd` is not a terminal.
int podcast_terminal_columns(int fd);

#endif
