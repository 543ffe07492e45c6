// test_file.c: the one atomic file write (util/file.h): the new bytes or the old file, never a
// mix, no temporary file left behind on success or failure, nothing but the named regular file
// ever replaced or written through; and the guarded open to read, which never waits on a FIFO.
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/file.h"
#include "util/npy.h"

static char dir[64];

static void make_dir(void) {
    snprintf(dir, sizeof(dir), "/tmp/pongrl-test-file-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

// dir/name into path (a test's buffers are all this size)
enum { TEST_PATH_MAX = 160 };
static void in_dir(char path[TEST_PATH_MAX], const char *name) { snprintf(path, TEST_PATH_MAX, "%s/%s", dir, name); }

// dir and whatever a test left in it
static void remove_dir(void) {
    DIR *dd = opendir(dir);
    struct dirent *e;
    char p[384];
    while (dd && (e = readdir(dd)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
            if (unlink(p)) rmdir(p);
        }
    if (dd) closedir(dd);
    rmdir(dir);
}

// A new test directory holding victim.txt ("victim"), the file a planted link points at.
static void make_dir_with_victim(char victim[TEST_PATH_MAX]) {
    make_dir();
    in_dir(victim, "victim.txt");
    char err[256];
    cr_assert_eq(file_replace(victim, "victim", 6, err, sizeof(err)), 0, "%s", err);
}

static size_t read_back(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

Test(file, replace_writes_the_bytes_and_leaves_no_temporary) {
    make_dir();
    char path[TEST_PATH_MAX], tmp[TEST_PATH_MAX + 8], buf[64], err[256];
    in_dir(path, "a.bin");
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    cr_assert_eq(file_replace(path, "first", 5, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(file_replace(path, "second!", 7, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(read_back(path, buf, sizeof(buf)), 7);
    cr_expect(!memcmp(buf, "second!", 7));
    cr_expect(!exists(tmp), "a temporary file was left");
    remove_dir();
}

// What a caller writes by name (a FILE *, gnuplot, ffmpeg) becomes the file on commit; an
// abort leaves the old file as it was.
Test(file, begin_commit_abort) {
    make_dir();
    char path[TEST_PATH_MAX], buf[64], err[256];
    in_dir(path, "c.txt");
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
    remove_dir();
}

// A place that cannot be written fails at once with one line naming it; nothing is created.
Test(file, unwritable_place_is_refused) {
    char err[256] = "";
    FileReplace fr;
    cr_expect_eq(file_replace("/nonexistent-dir/x.bin", "x", 1, err, sizeof(err)), -1);
    cr_expect(strstr(err, "/nonexistent-dir/x.bin") && strstr(err, "No such file"), "%s", err);
    cr_expect_eq(file_replace_begin(&fr, "/nonexistent-dir/y.bin", err, sizeof(err)), -1);
    cr_expect(!strchr(err, '\n'), "more than one line: %s", err);
}

// ----------------------------------------------------------------------------
// hostile places: what lies at the path or beside it is never written through or replaced

static int count_entries(const char *d) {
    DIR *dd = opendir(d);
    cr_assert_not_null(dd);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dd)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(dd);
    return n;
}

// One refusal: -1, one line naming the path and what it is, and the directory as it was.
static void expect_refused(const char *path, const char *kind, int entries) {
    char err[512] = "";
    FileReplace fr;
    cr_expect_eq(file_replace(path, "new", 3, err, sizeof(err)), -1, "%s replaced", kind);
    cr_expect(strstr(err, "not a regular file") && strstr(err, kind) && strstr(err, path), "%s: '%s'", kind, err);
    cr_expect(!strchr(err, '\n'), "more than one line: %s", err);
    cr_expect_eq(file_replace_begin(&fr, path, err, sizeof(err)), -1, "%s: begin let it through", kind);
    cr_expect_eq(count_entries(dir), entries, "%s: something was created or removed", kind);
}

Test(file, symlink_fifo_directory_at_the_path_are_refused) {
    char victim[TEST_PATH_MAX], link[TEST_PATH_MAX], fifo[TEST_PATH_MAX], sub[TEST_PATH_MAX], buf[16];
    make_dir_with_victim(victim);
    in_dir(link, "link.bin");
    in_dir(fifo, "fifo.bin");
    in_dir(sub, "sub");
    cr_assert_eq(symlink(victim, link), 0);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(mkdir(sub, 0700), 0);
    expect_refused(link, "symbolic link", 4);
    expect_refused(fifo, "FIFO", 4);
    expect_refused(sub, "directory", 4);
    struct stat st;
    cr_expect(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the symlink was replaced");
    cr_expect(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    cr_expect_eq(read_back(victim, buf, sizeof(buf)), 6);
    cr_expect(!memcmp(buf, "victim", 6), "written through the symlink");
    remove_dir();
}

// As root, `import M --out /dev/null` replaced the machine's /dev/null: a device made here
// (where mknod is allowed) stands for it.
Test(file, a_device_at_the_path_is_refused) {
    make_dir();
    char dev[TEST_PATH_MAX];
    in_dir(dev, "null");
    if (mknod(dev, S_IFCHR | 0666, makedev(1, 3))) {
        rmdir(dir);
        cr_skip_test("mknod not allowed here: %s", strerror(errno));
    }
    expect_refused(dev, "device", 1);
    struct stat st;
    cr_expect(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode), "the device was replaced");
    remove_dir();
}

// The temporary file was PATH.tmp, opened with O_CREAT|O_TRUNC: a symlink planted under that
// name had the write go wherever it pointed. One is planted there: nothing but PATH may change.
Test(file, a_symlink_planted_as_the_temporary_is_not_followed) {
    char victim[TEST_PATH_MAX], path[TEST_PATH_MAX], planted[TEST_PATH_MAX + 8], buf[16], err[256];
    make_dir_with_victim(victim);
    in_dir(path, "out.bin");
    snprintf(planted, sizeof(planted), "%s.tmp", path);
    cr_assert_eq(symlink(victim, planted), 0);
    cr_assert_eq(file_replace(path, "the new contents", 16, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(read_back(victim, buf, sizeof(buf)), 6);
    cr_expect(!memcmp(buf, "victim", 6), "written through the planted symlink");
    cr_expect_eq(read_back(path, buf, sizeof(buf)), 16);
    struct stat st;
    cr_expect(lstat(planted, &st) == 0 && S_ISLNK(st.st_mode), "the planted link was touched");
    cr_expect_eq(count_entries(dir), 3, "a temporary was left");
    // begin: a temporary of its own, named as a temporary of path, created empty by us
    FileReplace fr;
    cr_assert_eq(file_replace_begin(&fr, path, err, sizeof(err)), 0, "%s", err);
    cr_expect(strcmp(fr.tmp, planted), "the temporary took the planted name");
    cr_expect(file_is_tmp_of(strrchr(fr.tmp, '/') + 1, "out.bin"), "%s", fr.tmp);
    cr_expect(!file_is_tmp_of("out.bin.tmp", "out.bin") && !file_is_tmp_of("out.bin.0123456z.tmp", "out.bin"));
    cr_expect(lstat(fr.tmp, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
    FILE *f = file_replace_fopen(&fr, err, sizeof(err));
    cr_assert_not_null(f, "%s", err);
    fputs("by FILE", f);
    fclose(f);
    cr_assert_eq(file_replace_commit(&fr, err, sizeof(err)), 0, "%s", err);
    cr_expect_eq(read_back(path, buf, sizeof(buf)), 7);
    cr_expect_eq(count_entries(dir), 3, "a temporary was left");
    remove_dir();
}

// What path became while the contents were made is checked again before the rename.
Test(file, a_path_turned_into_a_symlink_before_commit_is_kept) {
    char victim[TEST_PATH_MAX], path[TEST_PATH_MAX], buf[16], err[256];
    make_dir_with_victim(victim);
    in_dir(path, "out.gif");
    FileReplace fr;
    cr_assert_eq(file_replace_begin(&fr, path, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(symlink(victim, path), 0);
    cr_expect_eq(file_replace_commit(&fr, err, sizeof(err)), -1);
    cr_expect(strstr(err, "symbolic link"), "%s", err);
    struct stat st;
    cr_expect(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    cr_expect_eq(read_back(victim, buf, sizeof(buf)), 6);
    cr_expect_eq(count_entries(dir), 2, "the temporary was left");
    remove_dir();
}

// ----------------------------------------------------------------------------
// reading: a FIFO with no writer or a device is refused at once, never waited on

// The temporary's name swapped for a symlink to another file while it is written (what a
// watcher does to a child process that reopens names): the contents go to the descriptor, the
// other file is never written, and commit refuses instead of renaming the link into place.
Test(file, a_temporary_swapped_for_a_symlink_is_never_written_through) {
    char victim[TEST_PATH_MAX], path[TEST_PATH_MAX], buf[16], err[256];
    make_dir_with_victim(victim);
    in_dir(path, "curve.png");
    FileReplace fr;
    cr_assert_eq(file_replace_begin(&fr, path, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(unlink(fr.tmp), 0);
    cr_assert_eq(symlink(victim, fr.tmp), 0);
    FILE *f = file_replace_fopen(&fr, err, sizeof(err));
    cr_assert_not_null(f, "%s", err);
    fputs("a PNG", f);
    fclose(f);
    cr_expect_eq(file_replace_commit(&fr, err, sizeof(err)), -1);
    cr_expect(strstr(err, "replaced by another program"), "%s", err);
    cr_expect_eq(read_back(victim, buf, sizeof(buf)), 6);
    cr_expect(!memcmp(buf, "victim", 6), "written through the swapped name");
    cr_expect(!exists(path), "the link was renamed into place");
    struct stat st;
    cr_expect(lstat(fr.tmp, &st) == 0 && S_ISLNK(st.st_mode), "another program's file was removed");
    unlink(fr.tmp);
    remove_dir();
}

// Temporaries carry their writer's pid: those of writers that died are removed by the next
// write of the same file; a living writer's, another file's and earlier versions' are kept.
Test(file, temporaries_of_dead_writers_are_swept) {
    char victim[TEST_PATH_MAX], path[TEST_PATH_MAX], name[TEST_PATH_MAX + 64], err[256];
    make_dir_with_victim(victim);
    in_dir(path, "out.bin");
    pid_t child = fork();
    if (child == 0) _exit(0);
    cr_assert_gt(child, 0);
    waitpid(child, NULL, 0); // a pid that has just died
    const char *dead_fmt = "%s.p%d.0123abcd.tmp", *kept[] = { "%s.p1.0123abcd.tmp", "%s.0123abcd.tmp" };
    snprintf(name, sizeof(name), dead_fmt, path, (int)child);
    cr_assert_eq(close(open(name, O_CREAT | O_WRONLY, 0644)), 0);
    for (int i = 0; i < 2; i++) {
        char k[TEST_PATH_MAX + 64];
        snprintf(k, sizeof(k), kept[i], path);
        cr_assert_eq(close(open(k, O_CREAT | O_WRONLY, 0644)), 0);
    }
    cr_assert_eq(file_replace(path, "x", 1, err, sizeof(err)), 0, "%s", err);
    cr_expect(!exists(name), "a dead writer's temporary was kept");
    cr_expect_eq(count_entries(dir), 4, "victim, out.bin and the two kept temporaries");
    cr_expect_eq(file_tmp_of("out.bin.p1.0123abcd.tmp", "out.bin"), 1);
    cr_expect_eq(file_tmp_of("out.bin.0123abcd.tmp", "out.bin"), 0);
    cr_expect_eq(file_tmp_of("out.bin.p01.0123abcd.tmp", "out.bin"), -1);
    cr_expect_eq(file_tmp_of("out.bin.p.0123abcd.tmp", "out.bin"), -1);
    cr_expect_eq(file_tmp_of("out.bin.p12.0123abcd.tmpx", "out.bin"), -1);
    cr_expect_eq(file_tmp_of("other.p12.0123abcd.tmp", "out.bin"), -1);
    remove_dir();
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

Test(file, open_to_read_refuses_a_fifo_without_waiting, .timeout = 10) {
    make_dir();
    char fifo[TEST_PATH_MAX], reg[TEST_PATH_MAX], link[TEST_PATH_MAX], err[512];
    in_dir(fifo, "model.bin");
    in_dir(reg, "reg.bin");
    in_dir(link, "link.csv");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    double t0 = now_s();
    cr_expect_eq(file_open_read(fifo, err, sizeof(err)), -1);
    cr_expect(strstr(err, fifo) && strstr(err, "not a regular file (a FIFO)"), "%s", err);
    cr_expect_null(file_fopen_read(fifo, err, sizeof(err)));
    cr_expect_eq(errno, EINVAL);
    // .npy: the caller names the path, the reason comes alone
    int nd;
    size_t shape[4];
    void *data;
    cr_expect_neq(npy_read(fifo, "<f8", &nd, shape, &data, err, sizeof(err)), 0);
    cr_expect_str_eq(err, "cannot open: not a regular file (a FIFO)");
    // appending (metrics.csv) neither waits for a reader nor follows a symlink
    cr_expect_null(file_fopen_append(fifo, err, sizeof(err)));
    cr_expect(strstr(err, "not a regular file"), "%s", err);
    cr_assert_eq(symlink(reg, link), 0);
    cr_expect_null(file_fopen_append(link, err, sizeof(err)));
    cr_expect(strstr(err, "symbolic link"), "%s", err);
    cr_expect(access(reg, F_OK) != 0, "created through the symlink");
    cr_expect_lt(now_s() - t0, 2.0, "waited on the FIFO");
    cr_expect_eq(file_open_read("/nonexistent-dir/x", err, sizeof(err)), -1);
    cr_expect_eq(errno, ENOENT);
    cr_expect_eq(file_open_read(dir, err, sizeof(err)), -1);
    cr_expect(strstr(err, "a directory"), "%s", err);
    // a regular file reads, blocking as ever
    cr_assert_eq(file_replace(reg, "abc", 3, err, sizeof(err)), 0, "%s", err);
    FILE *f = file_fopen_read(reg, err, sizeof(err));
    cr_assert_not_null(f, "%s", err);
    cr_expect(!(fcntl(fileno(f), F_GETFL) & O_NONBLOCK));
    char buf[8];
    cr_expect_eq(fread(buf, 1, sizeof(buf), f), 3);
    fclose(f);
    // appending starts at the end, as fopen "a" does: ftell says whether a header is due
    f = file_fopen_append(reg, err, sizeof(err));
    cr_assert_not_null(f, "%s", err);
    cr_expect_eq(ftell(f), 3);
    fputs("de", f);
    fclose(f);
    cr_expect_eq(read_back(reg, buf, sizeof(buf)), 5);
    remove_dir();
}

Test(file, a_long_path_is_cut_in_the_middle) {
    char path[600], buf[64];
    memset(path, 'a', 300);
    memset(path + 300, 'z', 299);
    path[599] = 0;
    const char *s = file_path_short(path, buf, 40);
    cr_expect_eq(strlen(s), 40);
    cr_expect(!strncmp(s, "aaaaaaaaaaaaaaaaaa...", 21) && s[39] == 'z', "%s", s);
    cr_expect_eq(file_path_short("short", buf, 40), (const char *)"short");
}

// Found by fuzz_npy: a dtype holding a newline was echoed raw, a message of two lines.
Test(file, an_npy_dtype_of_control_bytes_is_said_in_one_printable_line) {
    make_dir();
    char path[TEST_PATH_MAX], err[256];
    in_dir(path, "bad.npy");
    static const char hdr[] = "{'descr': '<f\n4', 'fortran_order': False, 'shape': (0,), }";
    char file[128];
    memset(file, ' ', sizeof(file));
    memcpy(file, "\x93NUMPY\x01\x00\x76\x00", 10);
    memcpy(file + 10, hdr, sizeof(hdr) - 1);
    file[127] = '\n';
    cr_assert_eq(file_replace(path, file, sizeof(file), err, sizeof(err)), 0, "%s", err);
    int nd;
    size_t shape[4];
    void *data;
    cr_expect_neq(npy_read(path, "<f8", &nd, shape, &data, err, sizeof(err)), 0);
    cr_expect_str_eq(err, "dtype <f?4, expected <f8");
    remove_dir();
}
