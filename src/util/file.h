// file.h: the one atomic file write, and the one way to open a file to read. A file is written
// under a new name beside PATH (PATH.<8 hex digits>.tmp, created exclusively, never through a
// symlink), synced, renamed over PATH, and the directory synced: a full disk, a kill or a power
// cut leaves the old PATH (or none), never half a file. An existing PATH that is not a regular
// file (a device such as /dev/null, a FIFO, a directory, a symlink) is refused, so that nothing
// but the named file is ever replaced. Every file pongrl writes goes through here (checkpoints,
// .npy files, model.txt, config.txt, metrics.csv when repaired, the plot, recordings).
#ifndef PONGRL_FILE_H
#define PONGRL_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FILE_PATH_MAX       4096
#define FILE_TMP_SUFFIX_LEN 40 // ".p<pid>.<8 hex digits>.tmp" and its NUL, with room to spare

// A write under way. tmp is created by begin (exclusively, never through a symlink) and kept
// open as fd: whoever writes the contents writes to that descriptor (a FILE * from
// file_replace_fopen, a child process given it as stdout or /dev/fd/N), never to the name,
// which another program may swap for a symlink meanwhile. Commit renames tmp into place only
// while the name still is that file.
typedef struct {
    char path[FILE_PATH_MAX];
    char tmp[FILE_PATH_MAX + FILE_TMP_SUFFIX_LEN];
    int fd;   // tmp, open to write; -1 once committed or aborted
    int slot; // where the signal handlers find tmp (file_remove_tmps_on_signals), or -1
} FileReplace;

// Checks path (absent or a regular file), then creates its temporary file empty (so that a
// place that cannot be written fails here, before any work). Temporaries of path left by
// writers that died (their pid in the name, no longer alive) are removed first. 0, or -1 with
// one line in err.
int file_replace_begin(FileReplace *r, const char *path, char *err, size_t errlen);
// The descriptor of tmp, open to write, for a writer that is not a FILE *.
int file_replace_fd(const FileReplace *r);
// tmp is whole: fsync it, check that tmp's name still is the file written and that path is
// absent or a regular file, rename tmp over path, fsync the directory. On failure tmp is
// removed and path is untouched (unless only the directory's sync failed: then path is the
// new file, not yet durable). 0, or -1 with one line in err.
int file_replace_commit(FileReplace *r, char *err, size_t errlen);
// A FILE * on tmp's descriptor (its own copy: fclose it before commit). NULL with one line in err.
FILE *file_replace_fopen(FileReplace *r, char *err, size_t errlen);
// Gives up: removes tmp; path is untouched.
void file_replace_abort(FileReplace *r);
// The whole write at once: path gets the n bytes at b. 0, or -1 with one line in err.
int file_replace(const char *path, const void *b, size_t n, char *err, size_t errlen);
// Whether name (a file name, no directory) is one of file_replace's temporaries of base
// (base.p<pid>.<8 hex digits>.tmp, or base.<8 hex digits>.tmp as earlier versions named them):
// what a kill in the middle of a write leaves behind. The writer's pid, or 0 where the name
// has none; -1 if name is not such a temporary.
long file_tmp_of(const char *name, const char *base);
int file_is_tmp_of(const char *name, const char *base);
// A new temporary name of path: path.p<pid>.<8 hex digits no other writer predicts>.tmp.
void file_tmp_name(char *buf, size_t n, const char *path);
// What a file of mode st_mode is, in words ("a symbolic link", "a FIFO", ...), for a refusal.
const char *file_kind(unsigned mode);

// From now on SIGINT, SIGTERM and SIGHUP remove the temporaries of the writes under way before
// the process dies of them (for the commands that write one file and end: record, export,
// import; train handles its signals itself and its run directory is swept when next opened).
void file_remove_tmps_on_signals(void);
// One more thing those handlers do first, with async-signal-safe calls only (dir_replace.h's
// temporary directory). NULL: nothing.
void file_at_fatal_signal(void (*cleanup)(void));

// All n bytes to fd (retrying short writes and EINTR). 0, or -1 with errno set.
int file_write_all(int fd, const uint8_t *b, size_t n);

// Opens path to read, refusing at once what is not a regular file: a FIFO with no writer or a
// device would block or never end. A descriptor (blocking, close-on-exec), or -1 with one line
// in err ("PATH: not a regular file (a FIFO)", "PATH: No such file or directory").
int file_open_read(const char *path, char *err, size_t errlen);
// The same as a FILE * ("rb").
FILE *file_fopen_read(const char *path, char *err, size_t errlen);
// path opened to append ("ab"), created if absent, positioned at its end (ftell: its size); a
// FIFO, a device or a symlink is refused at once. NULL with one line in err.
FILE *file_fopen_append(const char *path, char *err, size_t errlen);
// After file_open_read, file_fopen_read or file_fopen_append failed: errno as the failing call
// left it (ENOENT for a missing file; EINVAL for one that is not a regular file).

// path for a message: whole when it has at most max bytes (max >= 16), else its start and its
// end around "...", so that what follows it in the message (the reason) is never cut off.
const char *file_path_short(const char *path, char *buf, size_t max);

#endif
