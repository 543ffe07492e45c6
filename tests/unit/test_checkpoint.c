// test_checkpoint.c: the checkpoint format: a write and a load give back every field and
// every bit; older versions load; counters no run can reach are refused; every prefix of a
// good file and every single-byte change is refused, with a reason, never a crash (this binary
// runs under ASan+UBSan); .npy files round-trip.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_files.h"
#include "test_legacy.h"
#include "algo/pg/pg.h"
#include "train/checkpoint.h"
#include "util/crc.h"
#include "util/npy.h"

static void make_state(TrainState *s, int H) {
    TrainConfig c;
    train_config_default(&c);
    c.hidden = H;
    c.batch_size = 3;
    c.seed = 42;
    c.iterations = 77;
    c.has_target_reward = true;
    c.target_reward = 5.5;
    c.checkpoint_every = 9;
    c.checkpoint_secs = 12.5;
    c.keep = 4;
    snprintf(c.env_id, sizeof(c.env_id), "%s", "Pong-v4");
    cr_assert_eq(train_state_init(s, &c, &PG_LEARNER), 0);
    const Policy *net = &pg_state(s)->net;
    for (size_t i = 0; i < net->n; i++) pg_state(s)->cache[i] = (double)i * 1e-7 + 1e-300;
    for (size_t i = 0; i < net->n; i += 7) net->w[i] *= -0.5; // weights that moved (some), as training moves them
    s->iteration = 12;
    s->episodes = 36;
    s->agent_steps = 123456;
    s->frames = 493824;
    s->running_reward = -20.123456789;
    s->wall_s = 3.25;
    train_state_settle(s); // the learner owes its cache the decays of the iterations set above
}

// make_state's state written to a new temporary file; path: "/tmp/pongrl-ckpt-XXXXXX".
static void write_state(TrainState *s, int H, char *path) {
    make_state(s, H);
    close(mkstemp(path));
    char err[512];
    cr_assert_eq(checkpoint_write(path, s, 0, err, sizeof(err)), 0, "%s", err);
}

// make_state's state as the bytes of its checkpoint file (malloc'd, their count in *len).
static uint8_t *state_bytes(TrainState *s, int H, size_t *len) {
    char path[] = "/tmp/pongrl-ckpt-XXXXXX";
    write_state(s, H, path);
    uint8_t *buf = read_all(path, len);
    unlink(path);
    return buf;
}

static uint32_t le32_at(const uint8_t *buf, size_t at) {
    return (uint32_t)buf[at] | (uint32_t)buf[at + 1] << 8 | (uint32_t)buf[at + 2] << 16 | (uint32_t)buf[at + 3] << 24;
}

// The header's length, bytes 12..15 of the file.
static uint32_t header_bytes(const uint8_t *buf) { return le32_at(buf, 12); }

// The settings text's length, bytes 16..19 of the file; the text follows.
static uint32_t settings_bytes(const uint8_t *buf) { return le32_at(buf, 16); }

// The iteration that checkpoint_peek_iteration reads from the header of a file of these bytes.
static int64_t peeked(const uint8_t *b, size_t len) {
    char path[] = "/tmp/pongrl-ckpt-XXXXXX", err[512];
    int fd = mkstemp(path);
    cr_assert_eq(write(fd, b, len), (ssize_t)len);
    close(fd);
    int64_t it = -1;
    cr_assert_eq(checkpoint_peek_iteration(path, &it, err, sizeof(err)), 0, "%s", err);
    unlink(path);
    return it;
}

Test(checkpoint, write_then_load_gives_back_every_bit) {
    TrainState a, b;
    char path[] = "/tmp/pongrl-ckpt-XXXXXX";
    write_state(&a, 3, path);
    char err[512];
    uint32_t flags = 99;
    cr_assert_eq(checkpoint_load(path, &b, &flags, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(flags, 0);
    cr_assert_eq(b.saved.count, 2);
    cr_assert_str_eq(b.saved.name[0], "weights");
    cr_assert_str_eq(b.saved.name[1], "RMSProp cache");
    cr_assert(b.saved.from_fresh, "the arrays were not stored against a fresh run's");
    cr_assert_eq(train_state_attach(&b, &PG_LEARNER, err, sizeof(err)), 0, "%s", err);
    const Policy *pa = &pg_state(&a)->net, *pb = &pg_state(&b)->net;
    cr_assert_eq(pb->H, 3);
    cr_assert_eq(memcmp(pa->w, pb->w, sizeof(double) * pa->n), 0);
    cr_assert_eq(memcmp(pg_state(&a)->cache, pg_state(&b)->cache, sizeof(double) * pa->n), 0);
    cr_assert_eq(b.iteration, 12);
    cr_assert_eq(b.episodes, 36);
    cr_assert_eq(b.agent_steps, 123456);
    cr_assert_eq(b.frames, 493824);
    cr_assert_eq(b.running_reward, a.running_reward);
    cr_assert_eq(b.wall_s, 3.25);
    cr_assert_str_eq(b.cfg.env_id, "Pong-v4");
    cr_assert_eq(b.cfg.batch_size, 3);
    cr_assert_eq(b.cfg.seed, 42);
    cr_assert_eq(b.cfg.iterations, 77);
    cr_assert(b.cfg.has_target_reward);
    cr_assert_eq(b.cfg.target_reward, 5.5);
    cr_assert_eq(b.cfg.lr, a.cfg.lr);
    cr_assert_eq(b.cfg.gamma, a.cfg.gamma);
    cr_assert_eq(b.cfg.decay, a.cfg.decay);
    cr_assert_eq(b.cfg.checkpoint_every, 9);
    cr_assert_eq(b.cfg.checkpoint_secs, 12.5);
    cr_assert_eq(b.cfg.keep, 4);
    size_t len;
    uint8_t *buf = read_all(path, &len);
    const uint32_t hb = header_bytes(buf);
    cr_assert_lt(len, hb + 2 * pa->n * sizeof(double) / 2, "%zu bytes: not packed", len);
    cr_assert_eq(memcmp(buf, CKPT_MAGIC, 8), 0);
    cr_assert_eq(buf[8], CKPT_VERSION);
    free(buf);
    train_state_free(&a);
    train_state_free(&b);
    unlink(path);
}

// A version 1 file (a 228-byte header of fixed settings, the weights, the RMSProp cache), as the
// first builds wrote it, loads as Karpathy's learner's: its settings, weights and cache.
static void put_le(uint8_t *b, size_t *at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) b[(*at)++] = (uint8_t)(v >> (8 * i));
}
static void put_f(uint8_t *b, size_t *at, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    put_le(b, at, u, 8);
}

Test(checkpoint, version_1_loads_as_the_seeds_learner) {
    const int H = 2;
    const size_t n = (size_t)POLICY_D * H + H, len = 228 + 2 * 8 * n + 4;
    uint8_t *b = calloc(1, len);
    size_t at = 0;
    memcpy(b, CKPT_MAGIC, 8);
    at = 8;
    put_le(b, &at, 1, 4);
    put_le(b, &at, 228, 4);
    memcpy(b + at, "ALE/Pong-v5", 12);
    at += 64;
    put_le(b, &at, 7, 4);
    put_le(b, &at, (uint64_t)H, 4); // batch, hidden
    put_f(b, &at, 2e-4);
    put_f(b, &at, 0.98);
    put_f(b, &at, 0.97); // lr, gamma, decay
    put_le(b, &at, 5, 8);
    put_le(b, &at, 100, 8); // seed, iterations
    put_f(b, &at, 0.0);
    put_le(b, &at, 0, 4); // no target
    put_le(b, &at, 10, 8);
    put_f(b, &at, 60.0);
    put_le(b, &at, 3, 4); // every, secs, keep
    put_le(b, &at, 4, 8);
    put_le(b, &at, 28, 8);
    put_le(b, &at, 5000, 8);
    put_le(b, &at, 20000, 8);
    put_f(b, &at, -20.5);
    put_f(b, &at, 1.5);
    put_le(b, &at, POLICY_D, 4);
    put_le(b, &at, (uint64_t)H, 4);
    put_le(b, &at, n, 8);
    put_le(b, &at, 0, 4);
    cr_assert_eq(at, 228);
    for (size_t i = 0; i < n; i++) put_f(b, &at, (double)i * 1e-3 - 1.0);
    for (size_t i = 0; i < n; i++) put_f(b, &at, (double)i * 1e-6);
    put_le(b, &at, crc32_of(b, at), 4);
    cr_assert_eq(at, len);
    TrainState s;
    char err[512];
    cr_assert_eq(checkpoint_parse(b, len, true, &s, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(s.cfg.algo, PG_LEARNER.name);
    cr_assert_eq(s.cfg.hidden, H);
    cr_assert_eq(s.cfg.batch_size, 7);
    cr_assert_eq(s.cfg.seed, 5);
    cr_assert_eq(s.cfg.lr, 2e-4);
    cr_assert_eq(s.cfg.gamma, 0.98);
    cr_assert_eq(s.cfg.decay, 0.97);
    cr_assert_eq(s.iteration, 4);
    cr_assert_eq(peeked(b, len), 4);
    cr_assert_eq(s.episodes, 28);
    cr_assert_eq(s.running_reward, -20.5);
    cr_assert_eq(s.saved.count, 2);
    cr_assert_str_eq(s.saved.name[0], "weights"); // the weights block, as pg's array
    cr_assert_eq(s.saved.n[0], n);
    cr_assert_eq(train_state_attach(&s, &PG_LEARNER, err, sizeof(err)), 0, "%s", err);
    for (size_t i = 0; i < n; i++) cr_assert_eq(pg_state(&s)->net.w[i], (double)i * 1e-3 - 1.0);
    for (size_t i = 0; i < n; i++) cr_assert_eq(pg_state(&s)->cache[i], (double)i * 1e-6);
    train_state_free(&s);
    free(b);
}

// A version 3 pg file (the weights block, then the one array, its RMSProp cache) loads, and
// writes back as version 4 with the same bits.
Test(checkpoint, version_3_loads_and_goes_on_as_version_4) {
    TrainState a, b, c;
    make_state(&a, 2);
    const Policy *net = &pg_state(&a)->net;
    const LearnerArray cache = { "RMSProp cache", pg_state(&a)->cache, net->n, true };
    size_t len;
    uint8_t *buf = legacy_checkpoint(&a, 3, net->w, 2, &cache, 1, &len);
    char err[512];
    cr_assert_eq(checkpoint_parse(buf, len, true, &b, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert(b.saved.legacy);
    cr_assert_eq(peeked(buf, len), a.iteration);
    cr_assert_eq(train_state_attach(&b, &PG_LEARNER, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(memcmp(net->w, pg_state(&b)->net.w, 8 * net->n), 0);
    cr_assert_eq(memcmp(pg_state(&a)->cache, pg_state(&b)->cache, 8 * net->n), 0);
    char path[] = "/tmp/pongrl-ckpt-XXXXXX";
    close(mkstemp(path));
    cr_assert_eq(checkpoint_write(path, &b, 0, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(checkpoint_load(path, &c, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(train_state_attach(&c, &PG_LEARNER, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(memcmp(net->w, pg_state(&c)->net.w, 8 * net->n), 0);
    cr_assert_eq(memcmp(pg_state(&a)->cache, pg_state(&c)->cache, 8 * net->n), 0);
    cr_assert_eq(c.iteration, a.iteration);
    unlink(path);
    free(buf);
    train_state_free(&a);
    train_state_free(&b);
    train_state_free(&c);
}

// A counter past what any run reaches (2^50), in a file whose CRC is right, is refused in one
// line before the loop or a learner adds to it or multiplies it (near 2^63 they overflowed:
// undefined behaviour, which this binary's sanitizer stops at). Each of the four counters,
// in version 4 and in version 3.
static void set_le64(uint8_t *b, size_t at, uint64_t v) { legacy_put(b, &at, v, 8); }

Test(checkpoint, counters_no_run_can_reach_are_refused) {
    TrainState a, b;
    size_t len4, len3;
    uint8_t *v4 = state_bytes(&a, 1, &len4);
    const Policy *net = &pg_state(&a)->net;
    const LearnerArray cache = { "RMSProp cache", pg_state(&a)->cache, net->n, true };
    uint8_t *v3 = legacy_checkpoint(&a, 3, net->w, 1, &cache, 1, &len3);
    // the counters follow the settings text: magic, version, header bytes, its length, itself
    const uint32_t st = settings_bytes(v4);
    cr_assert_eq(memcmp(v3 + 16, v4 + 16, 4 + st), 0);
    const size_t counters = 20 + st;
    const uint64_t values[] = { INT64_MAX, INT64_MAX - 3, ((uint64_t)1 << 50) + 1, ((uint64_t)1 << 62) };
    char err[512];
    uint8_t *files[2] = { v4, v3 };
    size_t lens[2] = { len4, len3 };
    for (int f = 0; f < 2; f++) {
        for (int k = 0; k < 4; k++) {
            const size_t at = counters + 8 * (size_t)k;
            uint64_t was = 0;
            for (int i = 0; i < 8; i++) was |= (uint64_t)files[f][at + i] << (8 * i);
            for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
                set_le64(files[f], at, values[v]);
                legacy_recrc(files[f], lens[f]);
                err[0] = 0;
                cr_assert_neq(checkpoint_parse(files[f], lens[f], true, &b, NULL, err, sizeof(err)), 0,
                    "version %d, counter %d = %llu accepted", f ? 3 : 4, k, (unsigned long long)values[v]);
                cr_assert(strstr(err, "beyond what a run can reach") && !strchr(err, '\n'), "%s", err);
            }
            set_le64(files[f], at, (uint64_t)1 << 50); // the most a run reaches: loads
            legacy_recrc(files[f], lens[f]);
            cr_assert_eq(checkpoint_parse(files[f], lens[f], true, &b, NULL, err, sizeof(err)), 0, "%s", err);
            train_state_free(&b);
            set_le64(files[f], at, was);
            legacy_recrc(files[f], lens[f]);
        }
    }
    free(v4);
    free(v3);
    train_state_free(&a);
}

// A run's iterations end at 2^50, and files say no more: a state past it is not written (no
// load would take it); a goal past it (builds before the bound let --iterations ask for any
// int64) reads as the bound, where the loop stops anyway, so that such a run still resumes.
Test(checkpoint, iterations_end_at_the_bound_in_writer_and_reader) {
    TrainState a, b;
    make_state(&a, 1);
    char path[] = "/tmp/pongrl-ckpt-XXXXXX", err[512];
    close(mkstemp(path));
    a.iteration = CKPT_COUNTER_MAX + 1;
    cr_assert_neq(checkpoint_write(path, &a, 0, err, sizeof(err)), 0, "a state past 2^50 was written");
    cr_assert(strstr(err, "beyond what a run can reach") && strstr(err, "iteration 1125899906842625"), "%s", err);
    a.iteration = CKPT_COUNTER_MAX; // settled there (no 2^50 decays to owe: a test's shortcut)
    for (int i = 0; i < pg_state(&a)->net.D; i++) pg_state(&a)->cache_at[i] = a.iteration;
    const int64_t goals[] = { INT64_MAX, CKPT_COUNTER_MAX + 1, CKPT_COUNTER_MAX, 7 };
    for (size_t k = 0; k < sizeof(goals) / sizeof(goals[0]); k++) {
        a.cfg.iterations = goals[k];
        cr_assert_eq(checkpoint_write(path, &a, 0, err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(checkpoint_load(path, &b, NULL, err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(b.iteration, CKPT_COUNTER_MAX);
        cr_assert_eq(b.cfg.iterations, goals[k] > CKPT_COUNTER_MAX ? CKPT_COUNTER_MAX : goals[k]);
        cr_assert_eq(b.cfg.keep, 4); // the lines after it read as written
        int64_t it = -1;
        cr_assert_eq(checkpoint_peek_iteration(path, &it, err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(it, CKPT_COUNTER_MAX);
        train_state_free(&b);
    }
    unlink(path);
    train_state_free(&a);
}

// An array whose stored bits are not what a fresh run of the file's settings gives back (its
// settings changed under it, with the CRC redone): the array's own checksum refuses it.
Test(checkpoint, an_array_that_does_not_come_back_is_refused) {
    TrainState a, b;
    size_t len;
    uint8_t *buf = state_bytes(&a, 1, &len);
    const uint32_t st = settings_bytes(buf);
    char *seed = memmem(buf + 20, st, "\nseed=42\n", 9);
    cr_assert_not_null(seed);
    seed[7] = '3'; // seed=43: another fresh run
    legacy_recrc(buf, len);
    char err[512];
    cr_assert_eq(checkpoint_parse(buf, len, true, &b, NULL, err, sizeof(err)), 0, "%s", err);
    cr_assert_neq(train_state_attach(&b, &PG_LEARNER, err, sizeof(err)), 0);
    cr_assert(strstr(err, "array weights does not come back as it was written"), "%s", err);
    cr_assert_null(b.learner);
    train_state_free(&b);
    free(buf);
    train_state_free(&a);
}

Test(checkpoint, every_prefix_and_every_byte_change_is_refused) {
    TrainState a, b;
    char err[512];
    size_t len;
    uint8_t *buf = state_bytes(&a, 1, &len);
    // every prefix (the header byte by byte, then coarser)
    for (size_t n = 0; n < len; n += n < 400 ? 1 : 997) {
        err[0] = 0;
        cr_assert_neq(checkpoint_parse(buf, n, true, &b, NULL, err, sizeof(err)), 0, "prefix %zu accepted", n);
        cr_assert(err[0] && !strchr(err, '\n'), "prefix %zu: '%s'", n, err);
    }
    // every header byte changed, and some in the weights and the checksum
    const uint32_t hb = header_bytes(buf);
    for (size_t i = 0; i < len; i += i < hb ? 1 : 4099) {
        buf[i] ^= 0x5a;
        err[0] = 0;
        cr_assert_neq(checkpoint_parse(buf, len, true, &b, NULL, err, sizeof(err)), 0, "byte %zu changed, accepted", i);
        cr_assert(err[0], "byte %zu: no reason", i);
        buf[i] ^= 0x5a;
    }
    buf[len - 1] ^= 1;
    cr_assert_neq(checkpoint_parse(buf, len, true, &b, NULL, err, sizeof(err)), 0);
    cr_assert_str_eq(err, "corrupted (checksum mismatch)");
    buf[len - 1] ^= 1;
    cr_assert_eq(checkpoint_parse(buf, len, true, &b, NULL, err, sizeof(err)), 0, "%s", err);
    train_state_free(&b);
    free(buf);
    train_state_free(&a);
}

Test(npy, write_then_read_and_strict_headers) {
    char path[] = "/tmp/pongrl-npy-XXXXXX";
    close(mkstemp(path));
    double v[6] = { 1, -2, 3.5, 1e-300, -0.0, 42 };
    size_t shape[2] = { 2, 3 }, got[4];
    cr_assert_eq(npy_write(path, "<f8", 2, shape, v), 0);
    int nd;
    void *data;
    char err[256];
    cr_assert_eq(npy_read(path, "<f8", &nd, got, &data, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(nd, 2);
    cr_assert_eq(got[0], 2);
    cr_assert_eq(got[1], 3);
    cr_assert_eq(memcmp(data, v, sizeof(v)), 0);
    free(data);
    cr_assert_neq(npy_read(path, "|u1", &nd, got, &data, err, sizeof(err)), 0);
    cr_assert_str_eq(err, "dtype <f8, expected |u1");
    // headers numpy never writes are refused
    // clang-format off
    static const char *bad[] = {
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'extra': 1, }",
        "{'descr': '<f8', 'fortran_order': False, }",
        "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2, 3), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, 3), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1), }",
        "['descr', '<f8']",
    };
    // clang-format on
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        FILE *f = fopen(path, "wb");
        size_t hl = strlen(bad[k]) + 1;
        unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hl & 0xff),
            (unsigned char)(hl >> 8) };
        fwrite(pre, 1, 10, f);
        fwrite(bad[k], 1, hl - 1, f);
        fputc('\n', f);
        fwrite(v, 8, 6, f);
        fclose(f);
        cr_assert_neq(npy_read(path, "<f8", &nd, got, &data, err, sizeof(err)), 0, "accepted: %s", bad[k]);
    }
    unlink(path);
}

// The settings table (train/config.h) is the one place a setting is named: its text form
// (config.txt, checkpoints, the ranks' comparison) must read back to the same bits for every
// row, and a checkpoint's settings text must refuse what is not a row, or a row twice.
Test(settings, every_row_reads_back_its_text_and_bad_text_is_refused) {
    TrainConfig a, b;
    train_config_default(&a);
    // values off the defaults, so that a row that reads nothing is seen
    a.lr = 0.1 + 1e-17;
    a.gamma = 1.0 / 3;
    a.seed = UINT64_MAX;
    a.iterations = TRAIN_COUNTER_MAX;
    a.has_target_reward = true;
    a.target_reward = -20.5;
    a.checkpoint_secs = 1e-3;
    a.quiet = true;
    a.hidden = 7;
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        char text[128], why[128];
        train_setting_text(row, &a, text, sizeof(text));
        train_config_default(&b);
        cr_assert_null(train_setting_set(row, &b, text, why, sizeof(why)), "%s=%s: %s", row->name, text, why);
        char back[128];
        cr_assert_str_eq(train_setting_text(row, &b, back, sizeof(back)), text, "%s", row->name);
    }
    // the whole text form, read over the defaults, gives the same configuration's text
    char all[4096], again[4096], why[256];
    size_t n = train_config_write(&a, SETTING_RUN | SETTING_GOAL, all, sizeof(all));
    cr_assert_lt(n, sizeof(all));
    train_config_default(&b);
    cr_assert_null(train_config_read(&b, all, n, SETTING_RUN | SETTING_GOAL, why, sizeof(why)), "%s", why);
    train_config_write(&b, SETTING_RUN | SETTING_GOAL, again, sizeof(again));
    cr_assert_str_eq(again, all);
    cr_assert_eq(memcmp(&a.lr, &b.lr, sizeof(double)), 0);
    static const char *bad[] = { "nonsense=1\n", "seed=1\nseed=2\n", "hidden=0\n", "lr=x\n", "workers=2\n", "seed=1",
        "batch_size\n", "env_id=Pong-v9\n" };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        train_config_default(&b);
        why[0] = 0;
        cr_assert_not_null(train_config_read(&b, bad[k], strlen(bad[k]), SETTING_RUN | SETTING_GOAL, why, sizeof(why)),
            "accepted: %s", bad[k]);
        cr_assert(why[0] && !strchr(why, '\n'), "%s: '%s'", bad[k], why);
    }
}
