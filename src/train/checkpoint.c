// checkpoint.c: the checkpoint file (see checkpoint.h for the layout), its atomic write, its
// strict reader, and the run directory's rotation.
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../env/env.h"
#include "../util/crc.h"
#include "../util/file.h"

#define CKPT_ENV_ID_BYTES 64
#define CKPT_PREFIX "ckpt-"
#define CKPT_SUFFIX ".bin"
#define CKPT_DIGITS 8
#define CKPT_V1_ARRAY "RMSProp cache"      // version 1's one learner array (pg's)

_Static_assert(sizeof(((TrainConfig *)0)->env_id) == CKPT_ENV_ID_BYTES, "env_id field size is part of the format");

// ----------------------------------------------------------------------------
// little-endian fields, whatever the host

typedef struct { uint8_t *p; size_t pos; } Writer;

static void put_u32(Writer *w, uint32_t v) { for (int i = 0; i < 4; i++) w->p[w->pos++] = (uint8_t)(v >> (8 * i)); }
static void put_u64(Writer *w, uint64_t v) { for (int i = 0; i < 8; i++) w->p[w->pos++] = (uint8_t)(v >> (8 * i)); }
static void put_i32(Writer *w, int32_t v) { put_u32(w, (uint32_t)v); }
static void put_i64(Writer *w, int64_t v) { put_u64(w, (uint64_t)v); }
static void put_f64(Writer *w, double v) { uint64_t u; memcpy(&u, &v, 8); put_u64(w, u); }
static void put_bytes(Writer *w, const void *b, size_t n) { memcpy(w->p + w->pos, b, n); w->pos += n; }

// The reader never goes past len: a short read sets `short_read` and yields zeros.
typedef struct { const uint8_t *p; size_t len, pos; bool short_read; } Reader;

static bool need(Reader *r, size_t n) {
    if (r->len - r->pos < n) { r->short_read = true; return false; }
    return true;
}
static uint32_t get_u32(Reader *r) {
    if (!need(r, 4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)r->p[r->pos++] << (8 * i);
    return v;
}
static uint64_t get_u64(Reader *r) {
    if (!need(r, 8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)r->p[r->pos++] << (8 * i);
    return v;
}
static int32_t get_i32(Reader *r) { return (int32_t)get_u32(r); }
static int64_t get_i64(Reader *r) { return (int64_t)get_u64(r); }
static double get_f64(Reader *r) { uint64_t u = get_u64(r); double v; memcpy(&v, &u, 8); return v; }
static void get_bytes(Reader *r, void *out, size_t n) {
    if (!need(r, n)) { memset(out, 0, n); return; }
    memcpy(out, r->p + r->pos, n);
    r->pos += n;
}

size_t checkpoint_size(size_t n) { return CKPT_HEADER_BYTES + 2 * n * sizeof(double) + 4; }

// ----------------------------------------------------------------------------
// serialise

static uint8_t *serialize(const TrainState *s, const LearnerArray *cache, uint32_t flags, size_t *len) {
    const Policy *p = &s->policy;
    const TrainConfig *c = &s->cfg;
    *len = checkpoint_size(p->n);
    Writer w = { malloc(*len), 0 };
    if (!w.p) return NULL;
    put_bytes(&w, CKPT_MAGIC, 8);
    put_u32(&w, CKPT_VERSION);
    put_u32(&w, CKPT_HEADER_BYTES);
    char env_id[CKPT_ENV_ID_BYTES] = {0};                    // zero padding: no stray bytes in the file
    snprintf(env_id, sizeof(env_id), "%s", c->env_id);
    put_bytes(&w, env_id, sizeof(env_id));
    put_i32(&w, c->batch_size);
    put_i32(&w, c->hidden);
    put_f64(&w, c->lr); put_f64(&w, c->gamma); put_f64(&w, c->decay);
    put_u64(&w, c->seed);
    put_i64(&w, c->iterations);
    put_f64(&w, c->target_reward);
    put_u32(&w, c->has_target ? 1 : 0);
    put_i64(&w, c->checkpoint_every);
    put_f64(&w, c->checkpoint_secs);
    put_i32(&w, c->keep);
    put_i64(&w, s->iteration); put_i64(&w, s->episodes); put_i64(&w, s->agent_steps); put_i64(&w, s->frames);
    put_f64(&w, s->running_reward); put_f64(&w, s->wall_s);
    put_i32(&w, p->D); put_i32(&w, p->H); put_u64(&w, p->n);
    put_u32(&w, flags);
    // header size is part of the format; a field added above without a version bump fails here
    if (w.pos != CKPT_HEADER_BYTES) { free(w.p); return NULL; }
    for (size_t i = 0; i < p->n; i++) put_f64(&w, p->w[i]);
    for (size_t i = 0; i < p->n; i++) put_f64(&w, cache->data[i]);
    put_u32(&w, crc32_of(w.p, w.pos));
    return w.p;
}

// ----------------------------------------------------------------------------
// atomic write

int checkpoint_write(const char *path, const TrainState *s, uint32_t flags, char *err, size_t errlen) {
    if (strlen(path) + 8 > CKPT_PATH_MAX) { snprintf(err, errlen, "cannot write checkpoint: path too long"); return -1; }
    if (!train_state_settled(s)) {      // a caller's bug: the deferred cache decays would be lost
        snprintf(err, errlen, "cannot write checkpoint %s: the learner's state is not settled (train_state_settle)", path);
        return -1;
    }
    LearnerArray a[LEARNER_ARRAYS_MAX];
    int na = train_state_arrays((TrainState *)s, a);
    if (na != 1 || a[0].n != s->policy.n) {
        snprintf(err, errlen, "cannot write checkpoint %s: format version %u holds the seeds' learner only", path, CKPT_VERSION);
        return -1;
    }
    const char *bad = weights_unusable(s->policy.w, s->policy.n);
    if (!bad) bad = array_unusable(&a[0]);
    if (bad) {          // it could not be read back: a run that diverged stops here
        snprintf(err, errlen, "cannot write checkpoint %s: %s", path, bad);
        return -1;
    }
    size_t len;
    uint8_t *buf = serialize(s, &a[0], flags, &len);
    if (!buf) { snprintf(err, errlen, "cannot write checkpoint %s: out of memory", path); return -1; }
    char tmp[CKPT_PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const char *step = "create";
    if (fd < 0) goto fail;
    step = "write";
    if (file_write_all(fd, buf, len)) goto fail;
    step = "sync";
    if (fsync(fd)) goto fail;
    step = "close";
    { int rc = close(fd); fd = -1; if (rc) goto fail; }
    step = "rename";
    if (rename(tmp, path)) goto fail;
    free(buf);
    // the rename is durable once the directory is; a failure here loses nothing already on disk
    if (file_sync_dir(path)) { snprintf(err, errlen, "cannot sync the directory of %s: %s", path, strerror(errno)); return -1; }
    return 0;
fail:
    snprintf(err, errlen, "cannot %s checkpoint %s: %s", step, tmp, strerror(errno));
    if (fd >= 0) close(fd);
    unlink(tmp);                                  // the previous checkpoint was never touched
    free(buf);
    return -1;
}

// ----------------------------------------------------------------------------
// strict read

static bool config_valid(const TrainConfig *c, char *why, size_t n) {
    if (!memchr(c->env_id, 0, sizeof(c->env_id)) || !env_preset_find(c->env_id))
        { snprintf(why, n, "unknown environment id"); return false; }
    if (c->batch_size < 1 || c->batch_size > TRAIN_BATCH_MAX) { snprintf(why, n, "batch size %d", c->batch_size); return false; }
    if (!(c->lr >= 0 && c->lr <= 1) || !(c->gamma >= 0 && c->gamma <= 1) || !(c->decay >= 0 && c->decay <= 1))
        { snprintf(why, n, "lr, gamma or decay out of [0, 1]"); return false; }
    if (c->iterations < -1) { snprintf(why, n, "iterations %lld", (long long)c->iterations); return false; }
    if (c->has_target && !(c->target_reward >= -TRAIN_REWARD_MAX && c->target_reward <= TRAIN_REWARD_MAX))
        { snprintf(why, n, "target reward"); return false; }
    if (c->checkpoint_every < 0 || !(c->checkpoint_secs >= 0) || c->keep < 1)
        { snprintf(why, n, "checkpoint settings"); return false; }
    return true;
}

int checkpoint_parse(const uint8_t *buf, size_t len, bool check_crc, TrainState *s, uint32_t *flags_out,
                     char *err, size_t errlen) {
    memset(s, 0, sizeof(*s));
    if (len == 0) { snprintf(err, errlen, "empty file"); return -1; }
    if (len < 16) {
        bool prefix = memcmp(buf, CKPT_MAGIC, len < 8 ? len : 8) == 0;
        snprintf(err, errlen, prefix ? "truncated (%zu bytes, the header alone is %u)" : "not a pongrl checkpoint (bad magic)",
                 len, CKPT_HEADER_BYTES);
        return -1;
    }
    Reader r = { buf, len, 0, false };
    char magic[8];
    get_bytes(&r, magic, 8);
    if (memcmp(magic, CKPT_MAGIC, 8)) { snprintf(err, errlen, "not a pongrl checkpoint (bad magic)"); return -1; }
    uint32_t version = get_u32(&r);
    if (version != CKPT_VERSION) {
        snprintf(err, errlen, "checkpoint format version %u, this build reads version %u", version, CKPT_VERSION);
        return -1;
    }
    uint32_t hbytes = get_u32(&r);
    if (len < CKPT_HEADER_BYTES) {
        snprintf(err, errlen, "truncated (%zu bytes, the header alone is %u)", len, CKPT_HEADER_BYTES);
        return -1;
    }
    TrainConfig *c = &s->cfg;
    train_config_default(c);
    get_bytes(&r, c->env_id, sizeof(c->env_id));
    c->batch_size = get_i32(&r);
    c->hidden = get_i32(&r);
    c->lr = get_f64(&r); c->gamma = get_f64(&r); c->decay = get_f64(&r);
    c->seed = get_u64(&r);
    c->iterations = get_i64(&r);
    c->target_reward = get_f64(&r);
    uint32_t has_target = get_u32(&r);
    c->has_target = has_target != 0;
    c->checkpoint_every = get_i64(&r);
    c->checkpoint_secs = get_f64(&r);
    c->keep = get_i32(&r);
    c->run_dir[0] = 0;
    int64_t iteration = get_i64(&r), episodes = get_i64(&r), agent_steps = get_i64(&r), frames = get_i64(&r);
    double running = get_f64(&r), wall = get_f64(&r);
    int32_t D = get_i32(&r), H = get_i32(&r);
    uint64_t n = get_u64(&r);
    uint32_t flags = get_u32(&r);
    if (r.short_read || r.pos != CKPT_HEADER_BYTES) { snprintf(err, errlen, "truncated header"); return -1; }

    // sizes first (nothing is allocated before the file is known to hold the data)
    bool shape_ok = D == POLICY_D && H >= 1 && H <= CKPT_H_MAX && n == (uint64_t)D * (uint64_t)H + (uint64_t)H;
    if (shape_ok) {
        size_t want = checkpoint_size((size_t)n);
        if (len < want) { snprintf(err, errlen, "truncated (%zu of %zu bytes)", len, want); return -1; }
    }
    if (check_crc) {
        uint32_t stored = (uint32_t)buf[len - 4] | (uint32_t)buf[len - 3] << 8 | (uint32_t)buf[len - 2] << 16 |
                          (uint32_t)buf[len - 1] << 24;
        if (crc32_of(buf, len - 4) != stored) {
            snprintf(err, errlen, "corrupted (checksum mismatch)");
            return -1;
        }
    }
    if (hbytes != CKPT_HEADER_BYTES) { snprintf(err, errlen, "inconsistent header size %u", hbytes); return -1; }
    if (!shape_ok) {
        snprintf(err, errlen, "wrong shape: D=%d H=%d n=%llu (need D=%d, 1<=H<=%d, n=D*H+H)", D, H,
                 (unsigned long long)n, POLICY_D, CKPT_H_MAX);
        return -1;
    }
    if (c->hidden != H) { snprintf(err, errlen, "wrong shape: configuration says H=%d, weights have H=%d", c->hidden, H); return -1; }
    if (len != checkpoint_size((size_t)n)) {
        snprintf(err, errlen, "corrupted (%zu bytes, H=%d needs %zu)", len, H, checkpoint_size((size_t)n));
        return -1;
    }
    char why[96];
    if (has_target > 1 || !config_valid(c, why, sizeof(why))) {
        snprintf(err, errlen, "invalid configuration (%s)", has_target > 1 ? "has_target" : why);
        return -1;
    }
    if (iteration < 0 || episodes < 0 || agent_steps < 0 || frames < 0 || !(wall >= 0) ||
        !(running >= -TRAIN_REWARD_MAX && running <= TRAIN_REWARD_MAX) || (flags & ~CKPT_FLAG_IMPORTED)) {
        snprintf(err, errlen, "invalid counters or flags");
        return -1;
    }
    if (policy_alloc(&s->policy, D, H)) { snprintf(err, errlen, "out of memory (H=%d)", H); return -1; }
    // version 1 holds the seeds' learner's one array after the weights
    SavedArrays *sv = &s->saved;
    sv->data[0] = malloc(sizeof(double) * (size_t)n);
    if (!sv->data[0]) { train_state_free(s); snprintf(err, errlen, "out of memory (H=%d)", H); return -1; }
    sv->count = 1;
    snprintf(sv->name[0], sizeof(sv->name[0]), "%s", CKPT_V1_ARRAY);
    sv->n[0] = (size_t)n;
    sv->nonneg[0] = true;
    for (size_t i = 0; i < n; i++) s->policy.w[i] = get_f64(&r);
    for (size_t i = 0; i < n; i++) sv->data[0][i] = get_f64(&r);
    const LearnerArray cache = { sv->name[0], sv->data[0], sv->n[0], true };
    const char *bad = weights_unusable(s->policy.w, (size_t)n);
    if (!bad) bad = array_unusable(&cache);
    if (bad) { train_state_free(s); snprintf(err, errlen, "%s", bad); return -1; }
    s->iteration = iteration; s->episodes = episodes; s->agent_steps = agent_steps; s->frames = frames;
    s->running_reward = running; s->wall_s = wall;
    if (flags_out) *flags_out = flags;
    return 0;
}

int checkpoint_load(const char *path, TrainState *s, uint32_t *flags_out, char *err, size_t errlen) {
    memset(s, 0, sizeof(*s));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1; }
    struct stat st;
    if (fstat(fd, &st)) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); close(fd); return -1; }
    if (!S_ISREG(st.st_mode)) { snprintf(err, errlen, "%s: not a regular file", path); close(fd); return -1; }
    // no larger file can be valid: refuse before allocating
    if ((uint64_t)st.st_size > checkpoint_size((size_t)POLICY_D * CKPT_H_MAX + CKPT_H_MAX)) {
        snprintf(err, errlen, "%s: not a pongrl checkpoint (%lld bytes, larger than any)", path, (long long)st.st_size);
        close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) { snprintf(err, errlen, "%s: out of memory", path); close(fd); return -1; }
    size_t got = 0;
    while (got < len) {
        ssize_t k = read(fd, buf + got, len - got > (1u << 30) ? (1u << 30) : len - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); free(buf); close(fd); return -1; }
        if (k == 0) break;                             // shrank while reading: judged as truncated
        got += (size_t)k;
    }
    close(fd);
    char why[256];
    int rc = checkpoint_parse(buf, got, true, s, flags_out, why, sizeof(why));
    if (rc) snprintf(err, errlen, "%s: %s", path, why);
    free(buf);
    return rc;
}

// ----------------------------------------------------------------------------
// a run directory's checkpoints

static bool is_ckpt_name(const char *name) {
    size_t n = strlen(name), pl = strlen(CKPT_PREFIX), sl = strlen(CKPT_SUFFIX);
    if (n != pl + CKPT_DIGITS + sl || strncmp(name, CKPT_PREFIX, pl) || strcmp(name + n - sl, CKPT_SUFFIX)) return false;
    for (size_t i = pl; i < pl + CKPT_DIGITS; i++) if (name[i] < '0' || name[i] > '9') return false;
    return true;
}

static bool is_tmp_name(const char *name) {
    size_t n = strlen(name);
    return !strncmp(name, CKPT_PREFIX, strlen(CKPT_PREFIX)) && n > 4 && !strcmp(name + n - 4, ".tmp");
}

static int cmp_desc(const void *a, const void *b) { return strcmp(*(char *const *)b, *(char *const *)a); }

// The checkpoint file names of dir, newest first (the fixed-width iteration sorts as text).
// Iterations past 8 digits still sort correctly: a longer name is never a valid name here.
static int list_ckpts(const char *dir, char ***names, int *count) {
    *names = NULL; *count = 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_ckpt_name(e->d_name)) continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            char **q = realloc(*names, sizeof(char *) * (size_t)cap);
            if (!q) break;
            *names = q;
        }
        if (!((*names)[*count] = strdup(e->d_name))) break;
        (*count)++;
    }
    closedir(d);
    if (*count) qsort(*names, (size_t)*count, sizeof(char *), cmp_desc);
    return 0;
}

static void free_names(char **names, int count) {
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
}

static int prune(const char *cdir, int keep) {   // cdir: shorter than RUN_DIR_MAX + 16
    char **names;
    int count;
    if (list_ckpts(cdir, &names, &count)) return -1;
    char path[CKPT_PATH_MAX];
    for (int i = keep; i < count; i++) {
        snprintf(path, sizeof(path), "%s/%s", cdir, names[i]);
        unlink(path);
    }
    free_names(names, count);
    // temporaries a killed run left behind (this process writes one at a time, and not now)
    DIR *d = opendir(cdir);
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (is_tmp_name(e->d_name)) { snprintf(path, sizeof(path), "%s/%s", cdir, e->d_name); unlink(path); }
    closedir(d);
    return 0;
}

void checkpoint_path(const char *run_dir, int64_t iteration, char *out, size_t outlen) {
    snprintf(out, outlen, "%s/checkpoints/" CKPT_PREFIX "%0*lld" CKPT_SUFFIX, run_dir, CKPT_DIGITS, (long long)iteration);
}

int checkpoint_save(const char *run_dir, const TrainState *s, int keep, char *path_out, size_t pathlen,
                    char *err, size_t errlen) {
    if (strlen(run_dir) >= RUN_DIR_MAX) { snprintf(err, errlen, "run directory path too long"); return -1; }
    char cdir[RUN_DIR_MAX + 16], path[CKPT_PATH_MAX];
    snprintf(cdir, sizeof(cdir), "%s/checkpoints", run_dir);
    if (mkdir(cdir, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", cdir, strerror(errno));
        return -1;
    }
    checkpoint_path(run_dir, s->iteration, path, sizeof(path));
    if (checkpoint_write(path, s, 0, err, errlen)) return -1;
    if (path_out) snprintf(path_out, pathlen, "%s", path);
    prune(cdir, keep < 1 ? 1 : keep);                  // best effort: a stale file costs only disk
    return 0;
}

void checkpoint_scan(const char *run_dir, int *checkpoints, int *temporaries) {
    *checkpoints = *temporaries = 0;
    char cdir[RUN_DIR_MAX + 16];
    snprintf(cdir, sizeof(cdir), "%s/checkpoints", run_dir);
    DIR *d = opendir(cdir);
    if (!d) return;
    struct dirent *e;
    const size_t pl = strlen(CKPT_PREFIX), sl = strlen(CKPT_SUFFIX);
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, CKPT_PREFIX, pl) || n < pl + 4) continue;
        if (is_tmp_name(e->d_name)) (*temporaries)++;
        else if (!strcmp(e->d_name + n - sl, CKPT_SUFFIX)) (*checkpoints)++;
    }
    closedir(d);
}

int checkpoint_load_latest(const char *dir, TrainState *s, char *path_out, size_t pathlen, FILE *warn,
                           char *err, size_t errlen) {
    memset(s, 0, sizeof(*s));
    if (strlen(dir) >= RUN_DIR_MAX) { snprintf(err, errlen, "%s: path too long", dir); return -1; }
    char cdir[RUN_DIR_MAX + 16];
    snprintf(cdir, sizeof(cdir), "%s/checkpoints", dir);
    struct stat st;
    if (stat(cdir, &st) || !S_ISDIR(st.st_mode)) snprintf(cdir, sizeof(cdir), "%s", dir);
    char **names;
    int count;
    if (list_ckpts(cdir, &names, &count)) { snprintf(err, errlen, "%s: %s", cdir, strerror(errno)); return -1; }
    if (count == 0) { snprintf(err, errlen, "no checkpoint in %s", cdir); free_names(names, count); return -1; }
    char path[CKPT_PATH_MAX], why[512] = "", first_why[512] = "";
    int rc = -1, skipped = 0;
    for (int i = 0; i < count && rc; i++) {
        snprintf(path, sizeof(path), "%s/%s", cdir, names[i]);
        if (checkpoint_load(path, s, NULL, why, sizeof(why)) == 0) rc = 0;
        else if (skipped++ == 0) snprintf(first_why, sizeof(first_why), "%s", why);
    }
    // one line either way: the error if none loads, else a warning naming what was passed over
    if (rc) snprintf(err, errlen, "no usable checkpoint in %s (the newest, %s)", cdir, first_why);
    else {
        if (skipped && warn)
            fprintf(warn, "pongrl: warning: using %s; %d newer checkpoint%s did not load (the newest, %s)\n", path,
                    skipped, skipped > 1 ? "s" : "", first_why);
        if (path_out) snprintf(path_out, pathlen, "%s", path);
    }
    free_names(names, count);
    return rc;
}
