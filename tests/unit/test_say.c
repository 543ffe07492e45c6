// test_say.c: what pongrl prints of a string it was given (util/say.h). The expected texts are
// written out by hand from the rule (control bytes, DEL, C1 controls and bytes that are not UTF-8
// as \xNN, a backslash doubled, well-formed UTF-8 kept), not produced by the code under test.
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/say.h"

static const char *esc(const char *s) {
    static char buf[256];
    return say_escape(s, buf, sizeof(buf));
}

Test(say, control_bytes_are_shown_as_hex) {
    cr_assert_str_eq(esc("\x1b[2J\x1b[31mX"), "\\x1b[2J\\x1b[31mX");
    cr_assert_str_eq(esc("a\rb\nc\fd\te\x7f"), "a\\x0db\\x0ac\\x0cd\\x09e\\x7f");
    cr_assert_str_eq(esc("back\\slash"), "back\\\\slash");
    cr_assert_str_eq(esc("plain run/dir-1_x.bin"), "plain run/dir-1_x.bin");
}

Test(say, utf8_is_kept_and_what_is_not_utf8_is_escaped) {
    cr_assert_str_eq(esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8f\x93"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8f\x93");
    cr_assert_str_eq(esc("\xc2\x9b"
                         "2J"),
        "\\xc2\\x9b2J"); // U+009B, CSI: a C1 control
    cr_assert_str_eq(esc("\x9b"
                         "31m"),
        "\\x9b31m"); // a lone 8-bit CSI
    cr_assert_str_eq(esc("\xc3"
                         "x"),
        "\\xc3x");                                                     // a cut sequence
    cr_assert_str_eq(esc("\xc0\xaf"), "\\xc0\\xaf");                   // overlong '/'
    cr_assert_str_eq(esc("\xed\xa0\x80"), "\\xed\\xa0\\x80");          // a surrogate
    cr_assert_str_eq(esc("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); // past U+10FFFF
}

Test(say, long_text_keeps_its_start_and_end) {
    char in[1000], out[64];
    memset(in, 'a', sizeof(in));
    in[0] = 'S', in[998] = 'E', in[999] = 0;
    say_escape(in, out, sizeof(out));
    cr_assert_lt(strlen(out), sizeof(out));
    cr_assert_eq(out[0], 'S');
    cr_assert_eq(out[strlen(out) - 1], 'E');
    cr_assert_not_null(strstr(out, "..."));
    // escapes are never cut in half: every backslash is followed by a whole \xNN
    memset(in, '\x1b', 998);
    say_escape(in, out, sizeof(out));
    cr_assert_lt(strlen(out), sizeof(out));
    char *dots = strstr(out, "...");
    cr_assert_not_null(dots);
    for (char *p = out; *p; p++)
        if (p < dots || p >= dots + 3) {
            if (p[0] == 'E' && !p[1]) break;
            cr_assert_eq(strncmp(p, "\\x1b", 4), 0, "at %ld: %s", (long)(p - out), out);
            p += 3;
        }
}

Test(say, an_error_is_one_escaped_line_on_stderr) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    int saved = dup(2);
    dup2(fds[1], 2);
    say_error("%s: setting env_id unknown '%s'", "m/model.txt", "\x1b[2J\nforged: line");
    dup2(saved, 2);
    close(saved);
    close(fds[1]);
    char got[512] = "";
    ssize_t n = read(fds[0], got, sizeof(got) - 1);
    close(fds[0]);
    cr_assert_gt(n, 0);
    got[n] = 0;
    cr_assert_str_eq(got, "pongrl: m/model.txt: setting env_id unknown '\\x1b[2J\\x0aforged: line'\n");
}
