// checkpoint.c: the checkpoint file (see checkpoint.h for the layout), its atomic write and its
// strict reader (a run directory's checkpoints: checkpoint_dir.c).
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../env/env.h"
#include "../util/bytes.h"
#include "../util/crc.h"
#include "../util/file.h"
#include "../util/fmt.h"
#include "packed.h"


// ----------------------------------------------------------------------------
// serialise

#define CKPT_ROLES       (SETTING_RUN | SETTING_GOAL)             // the settings a checkpoint holds
#define CKPT_ARRAY_BYTES (LEARNER_ARRAY_NAME_MAX + 4 + 8 + 8 + 4) // an array's entry in the header

static size_t header_bytes(size_t settings, int arrays) {
    return 8 + 4 + 4 + 4 + settings + 4 * 8 + 2 * 8 + 4 + 4 + (size_t)arrays * CKPT_ARRAY_BYTES;
}

// Each array packed (packed.h) against ref (the same arrays of a fresh run; NULL: zeros).
typedef struct {
    uint8_t *z[LEARNER_ARRAYS_MAX];
    size_t zn[LEARNER_ARRAYS_MAX];
} Packed;

static void packed_free_all(Packed *pk) {
    for (int i = 0; i < LEARNER_ARRAYS_MAX; i++) free(pk->z[i]);
}

static uint8_t *serialize(
    const TrainState *s, const LearnerArray *a, const LearnerArray *ref, int na, uint32_t flags, size_t *len) {
    Packed pk = { 0 };
    for (int i = 0; i < na; i++)
        if (packed_encode(a[i].data, ref ? ref[i].data : NULL, a[i].n, &pk.z[i], &pk.zn[i])) {
            packed_free_all(&pk);
            return NULL;
        }
    const size_t st = train_config_write(&s->cfg, CKPT_ROLES, NULL, 0);
    const size_t hb = header_bytes(st, na);
    size_t total = hb + 4;
    for (int i = 0; i < na; i++) total += pk.zn[i];
    *len = total;
    ByteWriter w = { malloc(total), 0 };
    char *text = malloc(st + 1);
    if (!w.p || !text) {
        free(w.p);
        free(text);
        packed_free_all(&pk);
        return NULL;
    }
    bytes_put(&w, CKPT_MAGIC, 8);
    bytes_put_u32(&w, CKPT_VERSION);
    bytes_put_u32(&w, (uint32_t)hb);
    train_config_write(&s->cfg, CKPT_ROLES, text, st + 1);
    bytes_put_u32(&w, (uint32_t)st);
    bytes_put(&w, text, st);
    free(text);
    bytes_put_u64(&w, (uint64_t)s->iteration);
    bytes_put_u64(&w, (uint64_t)s->episodes);
    bytes_put_u64(&w, (uint64_t)s->agent_steps);
    bytes_put_u64(&w, (uint64_t)s->frames);
    bytes_put_f64(&w, s->running_reward);
    bytes_put_f64(&w, s->wall_s);
    bytes_put_u32(&w, flags | (ref ? CKPT_FLAG_FROM_FRESH : 0));
    bytes_put_u32(&w, (uint32_t)na);
    for (int i = 0; i < na; i++) {
        char name[LEARNER_ARRAY_NAME_MAX] = { 0 }; // zero padding: no stray bytes in the file
        snprintf(name, sizeof(name), "%s", a[i].name);
        bytes_put(&w, name, sizeof(name));
        bytes_put_u32(&w, a[i].nonneg ? 1 : 0);
        bytes_put_u64(&w, a[i].n);
        bytes_put_u64(&w, pk.zn[i]);
        bytes_put_u32(&w, packed_crc(a[i].data, a[i].n));
    }
    if (w.pos != hb) {
        free(w.p);
        packed_free_all(&pk);
        return NULL;
    } // a bug: the header's size is its layout's
    for (int i = 0; i < na; i++) bytes_put(&w, pk.z[i], pk.zn[i]);
    packed_free_all(&pk);
    bytes_put_u32(&w, crc32_of(w.p, w.pos));
    return w.p;
}

// ----------------------------------------------------------------------------
// atomic write

// A fresh run of s's settings (what the arrays are stored against: zero wherever the run has
// not moved them), kept in s->fresh from the first checkpoint on: NULL where none can be made now
// (out of memory: the arrays go plain).
static bool fresh_fits(const SavedArrays *f, const LearnerArray *a, int na) {
    bool same = f->count == na;
    for (int i = 0; same && i < na; i++) same = !strcmp(a[i].name, f->name[i]) && a[i].n == f->n[i];
    return same;
}

static const SavedArrays *fresh_reference(const TrainState *s, const LearnerArray *a, int na) {
    SavedArrays *f = (SavedArrays *)&s->fresh; // a cache, not the state's value: const for the caller
    if (fresh_fits(f, a, na)) return f;
    for (int i = 0; i < f->count; i++) free(f->data[i]);
    memset(f, 0, sizeof(*f));
    TrainState ref;
    LearnerArray ra[LEARNER_ARRAYS_MAX];
    if (train_state_init(&ref, &s->cfg, s->learner)) return NULL;
    train_state_settle(&ref);
    const int n = train_state_arrays(&ref, ra);
    bool ok = n == na && n <= LEARNER_ARRAYS_MAX;
    for (int i = 0; ok && i < n; i++) {
        ok = !strcmp(a[i].name, ra[i].name) && a[i].n == ra[i].n &&
            (f->data[i] = malloc(sizeof(double) * (ra[i].n ? ra[i].n : 1)));
        if (!ok) break;
        memcpy(f->data[i], ra[i].data, sizeof(double) * ra[i].n);
        snprintf(f->name[i], sizeof(f->name[i]), "%s", ra[i].name);
        f->n[i] = ra[i].n;
        f->nonneg[i] = ra[i].nonneg;
        f->count = i + 1;
    }
    train_state_free(&ref);
    if (ok) return f;
    for (int i = 0; i < f->count; i++) free(f->data[i]);
    memset(f, 0, sizeof(*f));
    return NULL;
}

// What a reader refuses a writer does not write: counters past CKPT_COUNTER_MAX. NULL, or why
// (in why).
static const char *counters_beyond(
    int64_t iteration, int64_t episodes, int64_t agent_steps, int64_t frames, char *why, size_t n) {
    if (iteration <= CKPT_COUNTER_MAX && episodes <= CKPT_COUNTER_MAX && agent_steps <= CKPT_COUNTER_MAX &&
        frames <= CKPT_COUNTER_MAX)
        return NULL;
    snprintf(why, n,
        "counters beyond what a run can reach (iteration %lld, episodes %lld, agent steps %lld, frames "
        "%lld; each at most 2^%d)",
        (long long)iteration, (long long)episodes, (long long)agent_steps, (long long)frames, CKPT_COUNTER_BITS);
    return why;
}

int checkpoint_write(const char *path, const TrainState *s, uint32_t flags, char *err, size_t errlen) {
    if (strlen(path) + 8 > CKPT_PATH_MAX) {
        snprintf(err, errlen, "cannot write checkpoint: path too long");
        return -1;
    }
    if (!s->learner) { // a caller's bug: a loaded state is attached (train_state_attach) before it is written
        snprintf(err, errlen, "cannot write checkpoint %s: no learner attached", path);
        return -1;
    }
    char why[256];
    if (counters_beyond(s->iteration, s->episodes, s->agent_steps, s->frames, why, sizeof(why))) {
        snprintf(err, errlen, "cannot write checkpoint %s: %s", path, why); // no load would take it
        return -1;
    }
    if (!train_state_settled(s)) { // a caller's bug: the deferred cache decays would be lost
        snprintf(
            err, errlen, "cannot write checkpoint %s: the learner's state is not settled (train_state_settle)", path);
        return -1;
    }
    LearnerArray a[LEARNER_ARRAYS_MAX], ra[LEARNER_ARRAYS_MAX];
    int na = train_state_arrays((TrainState *)s, a);
    const char *bad = NULL;
    for (int i = 0; i < na && !bad; i++) bad = array_unusable(&a[i]);
    if (bad) { // it could not be read back: a run that diverged stops here
        snprintf(err, errlen, "cannot write checkpoint %s: %s", path, bad);
        return -1;
    }
    const SavedArrays *fresh = fresh_reference(s, a, na);
    for (int i = 0; fresh && i < na; i++)
        ra[i] = (LearnerArray){ fresh->name[i], fresh->data[i], fresh->n[i], fresh->nonneg[i] };
    size_t len;
    uint8_t *buf = serialize(s, a, fresh ? ra : NULL, na, flags, &len);
    if (!buf) {
        snprintf(err, errlen, "cannot write checkpoint %s: out of memory", path);
        return -1;
    }
    int rc = file_replace(path, buf, len, err, errlen); // on failure the previous checkpoint is untouched
    free(buf);
    return rc;
}

// ----------------------------------------------------------------------------
// strict read

// Version 1 (until the settings became a table): a fixed header of 228 bytes, pg's
// learner's one array (its RMSProp cache) after the weights. Its settings are put in version
// 2's text form and read as version 2 reads them; it names no learner, so it gets the table's
// default one, which is what every checkpoint without the setting had.
#define CKPT_V1_HEADER_BYTES 228u
#define CKPT_V1_ARRAY        "RMSProp cache"

static const char *read_v1_settings(ByteReader *r, char *text, size_t n, int32_t *has_target) {
    char env_id[64], b[4][32];
    bytes_get(r, env_id, sizeof(env_id));
    int32_t batch = (int32_t)bytes_get_u32(r), hidden = (int32_t)bytes_get_u32(r);
    double lr = bytes_get_f64(r), gamma = bytes_get_f64(r), decay = bytes_get_f64(r);
    uint64_t seed = bytes_get_u64(r);
    int64_t iterations = (int64_t)bytes_get_u64(r);
    double target = bytes_get_f64(r);
    *has_target = (int32_t)bytes_get_u32(r);
    int64_t every = (int64_t)bytes_get_u64(r);
    double secs = bytes_get_f64(r);
    int32_t keep = (int32_t)bytes_get_u32(r);
    if (!memchr(env_id, 0, sizeof(env_id))) return "unknown environment id";
    if (*has_target > 1 || *has_target < 0) return "has_target";
    snprintf(text, n,
        "env_id=%s\nbatch_size=%d\nhidden=%d\nlr=%s\ngamma=%s\ndecay=%s\nseed=%llu\n"
        "iterations=%lld\ntarget_reward=%s\ncheckpoint_every=%lld\ncheckpoint_secs=%s\nkeep=%d\n",
        env_id, batch, hidden, fmt_shortest(lr, b[0], sizeof(b[0])), fmt_shortest(gamma, b[1], sizeof(b[1])),
        fmt_shortest(decay, b[2], sizeof(b[2])), (unsigned long long)seed, (long long)iterations,
        *has_target ? fmt_shortest(target, b[3], sizeof(b[3])) : "none", (long long)every,
        fmt_shortest(secs, b[0], sizeof(b[0])), keep);
    return NULL;
}

// Reads the arrays' data (r at the first byte after the header): a version 1 to 3 file's raw
// float64s (its weights block first, n of them, as the array "weights"), a version 4 file's
// packed streams (stored[i] bytes each). NULL, or what is wrong.
static const char *read_arrays(ByteReader *r, uint32_t version, uint64_t n, const uint64_t *stored, SavedArrays *sv) {
    if (version <= 3 && n) { // Karpathy's network first: the legacy array "weights"
        memmove(&sv->name[1], &sv->name[0], sizeof(sv->name[0]) * (size_t)sv->count);
        memmove(&sv->n[1], &sv->n[0], sizeof(sv->n[0]) * (size_t)sv->count);
        memmove(&sv->nonneg[1], &sv->nonneg[0], sizeof(sv->nonneg[0]) * (size_t)sv->count);
        snprintf(sv->name[0], sizeof(sv->name[0]), "%s", CKPT_LEGACY_WEIGHTS);
        sv->n[0] = (size_t)n;
        sv->nonneg[0] = false;
        sv->legacy = true;
        stored = NULL;
    }
    const int count = sv->count + (sv->legacy ? 1 : 0);
    sv->count = 0;
    for (int k = 0; k < count; k++) {
        if (version >= 4) {
            const char *why = packed_decode(r->p + r->pos, (size_t)stored[k], sv->n[k], &sv->data[k]);
            if (why) {
                static _Thread_local char msg[160];
                snprintf(msg, sizeof(msg), "corrupted (array %s: %s)", sv->name[k], why);
                return msg;
            }
            r->pos += (size_t)stored[k];
        } else {
            if (!(sv->data[k] = malloc(sizeof(double) * (sv->n[k] ? sv->n[k] : 1)))) return "out of memory";
            for (size_t i = 0; i < sv->n[k]; i++) sv->data[k][i] = bytes_get_f64(r);
        }
        sv->count = k + 1;
        if (sv->from_fresh) continue; // checked as the learner takes it back
        const LearnerArray la = { sv->name[k], sv->data[k], sv->n[k], sv->nonneg[k] };
        const char *bad = array_unusable(&la);
        if (bad) return bad;
    }
    return NULL;
}

// Builds before the bound on iterations (config.h) let --iterations ask for more: such a goal,
// which no run reaches, reads as the bound (where the loop stops anyway), so that their runs
// still resume. text: len bytes of "name=value\n" lines, shortened in place.
static void iterations_within_bound(char *text, size_t *len) {
    static const char key[] = "iterations=";
    const size_t kl = sizeof(key) - 1;
    for (char *line = text, *end = text + *len, *nl; line < end; line = nl + 1) {
        if (!(nl = memchr(line, '\n', (size_t)(end - line)))) return;
        if ((size_t)(nl - line) <= kl || strncmp(line, key, kl)) continue;
        char *v = line + kl;
        uint64_t x = 0;
        if (nl - v > 19) return; // more digits than an int64's: the table refuses it
        for (char *d = v; d < nl; d++) {
            if (*d < '0' || *d > '9') return; // not a plain number: the table refuses it
            x = x * 10 + (uint64_t)(*d - '0');
        }
        if (x <= (uint64_t)TRAIN_COUNTER_MAX) return;
        char bound[24];
        const size_t k = (size_t)snprintf(bound, sizeof(bound), "%lld", (long long)TRAIN_COUNTER_MAX);
        memcpy(v, bound, k); // no longer than the value it replaces
        memmove(v + k, nl, (size_t)(end - nl));
        *len -= (size_t)(nl - v) - k;
        return;
    }
}

int checkpoint_parse(
    const uint8_t *buf, size_t len, bool check_crc, TrainState *s, uint32_t *flags_out, char *err, size_t errlen) {
    memset(s, 0, sizeof(*s));
    if (len == 0) {
        snprintf(err, errlen, "empty file");
        return -1;
    }
    if (len < 16) {
        bool prefix = memcmp(buf, CKPT_MAGIC, len < 8 ? len : 8) == 0;
        snprintf(err, errlen,
            prefix ? "truncated (%zu bytes, less than a header)" : "not a pongrl checkpoint (bad magic)", len);
        return -1;
    }
    ByteReader r = { buf, len, 0, false };
    char magic[8];
    bytes_get(&r, magic, 8);
    if (memcmp(magic, CKPT_MAGIC, 8)) {
        snprintf(err, errlen, "not a pongrl checkpoint (bad magic)");
        return -1;
    }
    uint32_t version = bytes_get_u32(&r);
    if (version < 1 || version > CKPT_VERSION) {
        snprintf(err, errlen, "checkpoint format version %u, this build reads versions 1 to %u", version, CKPT_VERSION);
        return -1;
    }
    uint32_t hbytes = bytes_get_u32(&r);
    if (hbytes > len || hbytes < 16) {
        snprintf(err, errlen, "truncated (%zu bytes, the header says %u)", len, hbytes);
        return -1;
    }
    char text[CKPT_SETTINGS_MAX + 1], why[160];
    const char *bad = NULL;
    size_t tlen;
    int32_t has_target = 0;
    if (version == 1) {
        if (hbytes != CKPT_V1_HEADER_BYTES) {
            snprintf(err, errlen, "inconsistent header size %u", hbytes);
            return -1;
        }
        bad = read_v1_settings(&r, text, sizeof(text), &has_target);
        tlen = strlen(text);
    } else {
        uint32_t st = bytes_get_u32(&r);
        if (st > CKPT_SETTINGS_MAX || st > len - r.pos) {
            snprintf(err, errlen, "truncated or corrupted settings (%u bytes)", st);
            return -1;
        }
        bytes_get(&r, text, st);
        tlen = st;
    }
    int64_t iteration = (int64_t)bytes_get_u64(&r), episodes = (int64_t)bytes_get_u64(&r),
            agent_steps = (int64_t)bytes_get_u64(&r), frames = (int64_t)bytes_get_u64(&r);
    double running = bytes_get_f64(&r), wall = bytes_get_f64(&r);
    // versions 1 to 3: Karpathy's network's shape (all 0 in version 3 where the run had none)
    int32_t D = 0, H = 0;
    uint64_t n = 0;
    if (version <= 3) {
        D = (int32_t)bytes_get_u32(&r);
        H = (int32_t)bytes_get_u32(&r);
        n = bytes_get_u64(&r);
    }
    uint32_t flags = bytes_get_u32(&r);
    // the learner's arrays: version 1 has one, the RMSProp cache of n entries
    SavedArrays *sv = &s->saved;
    uint32_t na = version == 1 ? 1 : bytes_get_u32(&r);
    // versions 1 to 3: the weights block becomes one more array
    if (na > LEARNER_ARRAYS_MAX - (n ? 1 : 0)) {
        snprintf(err, errlen, "corrupted (%u learner arrays)", na);
        return -1;
    }
    uint64_t stored[LEARNER_ARRAYS_MAX] = { 0 };
    uint64_t data = 0, entries = n; // bytes after the header (less the CRC); float64s in all
    for (uint32_t i = 0; i < na; i++) {
        uint64_t an = n;
        if (version == 1) {
            snprintf(sv->name[i], sizeof(sv->name[i]), "%s", CKPT_V1_ARRAY);
            sv->nonneg[i] = true;
        } else {
            bytes_get(&r, sv->name[i], sizeof(sv->name[i]));
            uint32_t nonneg = bytes_get_u32(&r);
            an = bytes_get_u64(&r);
            if (version >= 4) {
                stored[i] = bytes_get_u64(&r);
                sv->crc[i] = bytes_get_u32(&r);
            }
            if (!memchr(sv->name[i], 0, sizeof(sv->name[i])) || nonneg > 1 || an > ((uint64_t)1 << 40) ||
                stored[i] > CKPT_SIZE_MAX) {
                snprintf(err, errlen, "corrupted (learner array %u)", i);
                return -1;
            }
            sv->nonneg[i] = nonneg;
        }
        sv->n[i] = (size_t)an;
        data += version >= 4 ? stored[i] : 8 * an;
        entries += an;
    }
    sv->count = (int)na;
    sv->has_crc = version >= 4;
    sv->from_fresh = version >= 4 && (flags & CKPT_FLAG_FROM_FRESH);
    if (r.short_read || r.pos != hbytes) {
        snprintf(err, errlen, "truncated or inconsistent header");
        return -1;
    }

    // sizes first (nothing is allocated before the file is known to hold the data)
    // version 3: D = H = n = 0 says the run has no pg network (its learner has its own)
    const bool no_policy = version >= 4 || (version == 3 && D == 0 && H == 0 && n == 0);
    bool shape_ok =
        no_policy || (D == POLICY_D && H >= 1 && H <= CKPT_H_MAX && n == (uint64_t)D * (uint64_t)H + (uint64_t)H);
    const uint64_t want = hbytes + data + (version <= 3 ? 8 * n : 0) + 4;
    if (shape_ok && len < want) {
        snprintf(err, errlen, "truncated (%zu of %llu bytes)", len, (unsigned long long)want);
        return -1;
    }
    if (check_crc) { // before what the header says is believed
        ByteReader tail = { buf + len - 4, 4, 0, false };
        const uint32_t stored_crc = bytes_get_u32(&tail);
        if (crc32_of(buf, len - 4) != stored_crc) {
            snprintf(err, errlen, "corrupted (checksum mismatch)");
            return -1;
        }
    }
    if (!shape_ok) {
        snprintf(err, errlen, "wrong shape: D=%d H=%d n=%llu (need D=%d, 1<=H<=%d, n=D*H+H%s)", D, H,
            (unsigned long long)n, POLICY_D, CKPT_H_MAX, version >= 3 ? ", or all 0" : "");
        return -1;
    }
    if (len != want) {
        snprintf(err, errlen, "corrupted (%zu bytes, the header says %llu)", len, (unsigned long long)want);
        return -1;
    }
    if (entries > CKPT_ENTRIES_MAX) {
        snprintf(err, errlen, "corrupted (%llu float64s, more than any run has)", (unsigned long long)entries);
        return -1;
    }
    // a setting added after the file was written gets its default
    train_config_default(&s->cfg);
    iterations_within_bound(text, &tlen);
    if (!bad) bad = train_config_read(&s->cfg, text, tlen, CKPT_ROLES, why, sizeof(why));
    if (bad) {
        snprintf(err, errlen, "invalid configuration (%s)", bad);
        return -1;
    }
    s->cfg.run_dir[0] = 0;
    if (!no_policy && s->cfg.hidden != H) {
        snprintf(err, errlen, "wrong shape: configuration says H=%d, weights have H=%d", s->cfg.hidden, H);
        return -1;
    }
    if (iteration < 0 || episodes < 0 || agent_steps < 0 || frames < 0 || !(wall >= 0 && wall <= CKPT_WALL_MAX_S) ||
        !(running >= -TRAIN_REWARD_MAX && running <= TRAIN_REWARD_MAX) || (flags & ~CKPT_FLAGS_KNOWN) ||
        (version <= 3 && (flags & CKPT_FLAG_FROM_FRESH))) {
        snprintf(err, errlen, "invalid counters or flags");
        return -1;
    }
    if (counters_beyond(iteration, episodes, agent_steps, frames, err, errlen)) return -1;
    bad = read_arrays(&r, version, n, stored, sv);
    if (bad) {
        snprintf(err, errlen, "%s", bad);
        train_state_free(s);
        return -1;
    }
    train_state_adopt(s, &(TrainCounters){ iteration, episodes, agent_steps, frames, running, wall }); // no learner yet
    if (flags_out) *flags_out = flags & ~CKPT_FLAG_FROM_FRESH;
    return 0;
}

int checkpoint_load(const char *path, TrainState *s, uint32_t *flags_out, char *err, size_t errlen) {
    memset(s, 0, sizeof(*s));
    int fd = file_open_read(path, err, errlen); // a FIFO or a device: refused, never waited on
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    // no larger file can be valid: refuse before allocating
    if ((uint64_t)st.st_size > CKPT_SIZE_MAX) {
        snprintf(err, errlen, "%s: not a pongrl checkpoint (%lld bytes, larger than any)", path, (long long)st.st_size);
        close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        close(fd);
        return -1;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t k = read(fd, buf + got, len - got > (1u << 30) ? (1u << 30) : len - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (k == 0) break; // shrank while reading: judged as truncated
        got += (size_t)k;
    }
    close(fd);
    char why[256];
    int rc = checkpoint_parse(buf, got, true, s, flags_out, why, sizeof(why));
    if (rc) snprintf(err, errlen, "%s: %s", path, why);
    free(buf);
    return rc;
}

int checkpoint_peek_iteration(const char *path, int64_t *iteration, char *err, size_t errlen) {
    int fd = file_open_read(path, err, errlen); // errno: the caller tells a full table of files from a bad file
    if (fd < 0) return -1;
    uint8_t buf[16 + 4 + CKPT_SETTINGS_MAX + 8]; // magic to iteration, the longest settings (version 1's: less)
    size_t got = 0;
    while (got < sizeof(buf)) {
        ssize_t k = read(fd, buf + got, sizeof(buf) - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        if (k == 0) break;
        got += (size_t)k;
    }
    close(fd);
    errno = 0; // from here, what the file says
    ByteReader r = { buf, got, 0, false };
    char magic[8], text[CKPT_SETTINGS_MAX + 1];
    bytes_get(&r, magic, 8);
    const uint32_t version = bytes_get_u32(&r);
    bytes_get_u32(&r); // the header's bytes: checkpoint_load checks them
    if (r.short_read || memcmp(magic, CKPT_MAGIC, 8) || version < 1 || version > CKPT_VERSION) {
        snprintf(err, errlen, "%s: not a checkpoint this build reads", path);
        return -1;
    }
    if (version == 1) {
        int32_t has_target;
        read_v1_settings(&r, text, sizeof(text), &has_target);
    } else {
        const uint32_t st = bytes_get_u32(&r);
        if (st > CKPT_SETTINGS_MAX)
            r.short_read = true;
        else if (bytes_take(&r, st))
            r.pos += st;
    }
    const int64_t it = (int64_t)bytes_get_u64(&r);
    if (r.short_read || it < 0 || it > CKPT_COUNTER_MAX) {
        snprintf(err, errlen, "%s: truncated, or an iteration no run can reach", path);
        return -1;
    }
    *iteration = it;
    return 0;
}
