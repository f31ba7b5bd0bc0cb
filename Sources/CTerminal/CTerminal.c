// Glibc declares wcwidth only under _XOPEN_SOURCE, which Swift's Glibc module does not define.
#define _XOPEN_SOURCE 700
// cfmakeraw is a BSD extension.
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <termios.h>
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

void podcast_terminal_size(int fd, int *lines, int *columns) {
    struct winsize size;
    if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &size) != 0) {
        *lines = 0;
        *columns = 0;
        return;
    }
    *lines = size.ws_row;
    *columns = size.ws_col;
}

int podcast_set_terminal_size(int fd, int rows, int columns) {
    struct winsize size = {0};
    size.ws_row = (unsigned short)rows;
    size.ws_col = (unsigned short)columns;
    return ioctl(fd, TIOCSWINSZ, &size);
}

int podcast_open_pseudo_terminal(int rows, int columns, int *controller, int *device) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0) {
        close(master);
        return -1;
    }
    const char *name = ptsname(master);
    int slave = name ? open(name, O_RDWR | O_NOCTTY) : -1;
    if (slave < 0) {
        close(master);
        return -1;
    }
    struct termios mode;
    if (tcgetattr(slave, &mode) == 0) {
        cfmakeraw(&mode);
        tcsetattr(slave, TCSANOW, &mode);
    }
    podcast_set_terminal_size(slave, rows, columns);
    *controller = master;
    *device = slave;
    return 0;
}
