// file.h: the pieces of an atomic file write (temporary file, write, fsync, rename, fsync of
// the directory) that checkpoints and exported weights share.
#ifndef PONGRL_FILE_H
#define PONGRL_FILE_H

#include <stddef.h>
#include <stdint.h>

// All n bytes to fd (retrying short writes and EINTR). 0, or -1 with errno set.
int file_write_all(int fd, const uint8_t *b, size_t n);
// fsync of the directory that holds path: makes a rename in it durable. 0, or -1 with errno set.
int file_sync_dir(const char *path);

#endif
