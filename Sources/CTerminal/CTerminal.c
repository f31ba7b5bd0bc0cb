// Glibc declares wcwidth only under _XOPEN_SOURCE, which Swift's Glibc module does not define.
#define _XOPEN_SOURCE 700
#include <wchar.h>
#include <locale.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "CTerminal.h"

int podcast_wcwidth(uint32_t scalar) {
    return wcwidth((wchar_t)scalar);
}

void podcast_use_utf8_ctype(void) {
    setlocale(LC_CTYPE, "C.UTF-8");
}

int podcast_terminal_columns(int fd) {
    struct winsize size;
    if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &size) != 0) {
        return 0;
    }
    return size.ws_col;
}
