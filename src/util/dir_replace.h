// dir_replace.h: a directory of files replaced whole, or not at all (file.h's atomic write, for a
// folder: what `pongrl export` writes). The new files are written in a directory of our own
// beside PATH (PATH.p<pid>.<8 hex digits>.tmp, made with mkdir, so that no other writer shares
// it), each created exclusively and synced; then the directory takes PATH's place in one step:
// rename(2) where PATH is absent, else an exchange of the two directories (renameat2
// RENAME_EXCHANGE) after which the old one's files are removed. A reader of PATH sees the old
// files or the new ones, never a mix; a failure or a kill leaves PATH as it was.
//
// Only a directory whose every entry the caller calls its own (`ours`: a plain file of a name
// it writes) is ever replaced, and only when the caller says so (force): a user's other files
// are never deleted. PATH that is a symlink, a regular file, a FIFO or a device is refused.
#ifndef PONGRL_DIR_REPLACE_H
#define PONGRL_DIR_REPLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "file.h"

// Whether name (an entry of the directory, no '/') is a file the caller writes there. It must be
// a pure function of the string: the signal handler calls it too.
typedef bool (*DirOwnName)(const char *name);

typedef struct {
    char path[FILE_PATH_MAX];                      // PATH, without trailing slashes
    char tmp[FILE_PATH_MAX + FILE_TMP_SUFFIX_LEN]; // the directory to write the files in, by name
    int fd;                                        // tmp, open (O_DIRECTORY); -1 once committed or aborted
    bool force;                                    // an existing PATH may be replaced
    DirOwnName ours;                               // the files that are the caller's
    const char *ours_what;                         // they, in words ("a pongrl export's files (...)")
} DirReplace;

// Checks PATH (absent; or, with force, a directory of files that are all ours: ours_what names
// them in the refusal of any other entry) and makes tmp, an
// empty directory of ours, after removing the temporary directories of PATH whose writers died
// (their pid in the name, no longer alive; only files that are ours are removed from them). 0, or
// -1 with one line in err: a directory there without force says what it holds and that force
// (--force) replaces it.
// The caller then writes its files into tmp (by the name r->tmp/NAME), each created exclusively
// (O_CREAT | O_EXCL | O_NOFOLLOW) and synced.
int dir_replace_begin(
    DirReplace *r, const char *path, bool force, DirOwnName ours, const char *ours_what, char *err, size_t errlen);
// tmp is whole: syncs it, checks again that its name is still our directory and what PATH is now,
// then puts tmp in PATH's place and syncs PATH's directory; the old directory's files are then
// removed. 0; 1 when the new files are in place but the old directory could not be removed whole
// (err says what was left, for a warning); -1 with one line in err, tmp removed and PATH as it
// was (unless only the final sync failed: then PATH is the new directory, not yet durable).
int dir_replace_commit(DirReplace *r, char *err, size_t errlen);
// Gives up: removes tmp and what it holds; PATH is untouched.
void dir_replace_abort(DirReplace *r);

// From now on the handlers of file.h's file_remove_tmps_on_signals (SIGINT, SIGTERM, SIGHUP) also
// remove the temporary directory of a replacement under way. For the commands that write a
// directory and end (export).
void dir_remove_tmps_on_signals(void);

#endif
