// test_file.c: the one atomic file write (util/file.h): the new bytes or the old file, never a
// mix, and no temporary file left behind on success or failure.
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

static char dir[64];

static void make_dir(void) {
    snprintf(dir, sizeof(dir), "/tmp/pongrl-test-file-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static size_t read_back(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static bool exists(const char *path) { struct stat st; return stat(path, &st) == 0; }

Test(file, replace_writes_the_bytes_and_leaves_no_temporary) {
    make_dir();
    char path[128], tmp[160], buf[64], err[256];
    snprintf(path, sizeof(path), "%s/a.bin", dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    cr_assert_eq(file_replace(path, "first", 5, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(file_replace(path, "second!", 7, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(read_back(path, buf, sizeof(buf)), 7);
    cr_expect(!memcmp(buf, "second!", 7));
    cr_expect(!exists(tmp), "a temporary file was left");
    unlink(path); rmdir(dir);
}

// What a caller writes by name (a FILE *, gnuplot, ffmpeg) becomes the file on commit; an
// abort leaves the old file as it was.
Test(file, begin_commit_abort) {
    make_dir();
    char path[128], buf[64], err[256];
    snprintf(path, sizeof(path), "%s/c.txt", dir);
    cr_assert_eq(file_replace(path, "old", 3, err, sizeof(err)), 0, "%s", err);
    FileReplace fr;
    cr_assert_eq(file_replace_begin(&fr, path, err, sizeof(err)), 0, "%s", err);
    FILE *f = fopen(fr.tmp, "w");
    cr_assert_not_null(f);
    fputs("half", f);
    fclose(f);
    file_replace_abort(&fr);
    cr_expect_eq(read_back(path, buf, sizeof(buf)), 3);
    cr_expect(!memcmp(buf, "old", 3), "an abort changed the file");
    cr_expect(!exists(fr.tmp));
    cr_assert_eq(file_replace_begin(&fr, path, err, sizeof(err)), 0, "%s", err);
    f = fopen(fr.tmp, "w");
    fputs("new one", f);
    fclose(f);
    cr_assert_eq(file_replace_commit(&fr, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(read_back(path, buf, sizeof(buf)), 7);
    cr_expect(!memcmp(buf, "new one", 7));
    cr_expect(!exists(fr.tmp));
    unlink(path); rmdir(dir);
}

// A place that cannot be written fails at once with one line naming it; nothing is created.
Test(file, unwritable_place_is_refused) {
    char err[256] = "";
    FileReplace fr;
    cr_expect_eq(file_replace("/nonexistent-dir/x.bin", "x", 1, err, sizeof(err)), -1);
    cr_expect(strstr(err, "/nonexistent-dir/x.bin.tmp") && strstr(err, "No such file"), "%s", err);
    cr_expect_eq(file_replace_begin(&fr, "/nonexistent-dir/y.bin", err, sizeof(err)), -1);
    cr_expect(!strchr(err, '\n'), "more than one line: %s", err);
}
