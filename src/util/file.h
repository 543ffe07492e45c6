// file.h: the one atomic file write. A file is written as PATH.tmp beside PATH, synced, renamed
// over PATH, and the directory synced: a full disk, a kill or a power cut leaves the old PATH
// (or none), never half a file. Every file pongrl writes goes through here (checkpoints, W1/W2.npy,
// config.txt, metrics.csv when repaired, the plot, recordings).
#ifndef PONGRL_FILE_H
#define PONGRL_FILE_H

#include <stddef.h>
#include <stdint.h>

#define FILE_PATH_MAX 4096

// A write under way: whoever writes the contents writes them to `tmp` (by name: a FILE *,
// gnuplot, ffmpeg), then commits or aborts.
typedef struct {
    char path[FILE_PATH_MAX];
    char tmp[FILE_PATH_MAX + 8];       // path ".tmp"
} FileReplace;

// Names path.tmp and creates it empty (so that a place that cannot be written fails here,
// before any work, and a program told to write there finds it can). 0, or -1 with one line in err.
int file_replace_begin(FileReplace *r, const char *path, char *err, size_t errlen);
// tmp is whole: fsync it, rename it over path, fsync the directory. On failure tmp is removed
// and path is untouched (unless only the directory's sync failed: then path is the new file,
// not yet durable). 0, or -1 with one line in err.
int file_replace_commit(FileReplace *r, char *err, size_t errlen);
// Gives up: removes tmp; path is untouched.
void file_replace_abort(FileReplace *r);
// The whole write at once: path gets the n bytes at b. 0, or -1 with one line in err.
int file_replace(const char *path, const void *b, size_t n, char *err, size_t errlen);

// All n bytes to fd (retrying short writes and EINTR). 0, or -1 with errno set.
int file_write_all(int fd, const uint8_t *b, size_t n);

#endif
