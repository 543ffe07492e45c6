// file.c: atomic-write helpers (file.h).
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int file_write_all(int fd, const uint8_t *b, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, b, n > (1u << 30) ? (1u << 30) : n);
        if (k < 0) { if (errno == EINTR) continue; return -1; }
        b += k; n -= (size_t)k;
    }
    return 0;
}

int file_sync_dir(const char *path) {
    char *buf = strdup(path);
    if (!buf) return -1;
    int fd = open(dirname(buf), O_RDONLY | O_DIRECTORY), e = errno;
    free(buf);
    errno = e;
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}
