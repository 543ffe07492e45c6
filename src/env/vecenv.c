// vecenv.c: N environments stepped together on the project's pool of threads (see vecenv.h).
//
// A step's rows are cut into chunks of contiguous rows, the parts of one workpool job: the
// calling thread and the pool's threads claim them until none is left (util/workpool.h says
// why claiming, and why a thread spins briefly before it sleeps). Every env's randomness
// comes from (seed, env index, episode index), never from the thread, so who steps a chunk
// changes nothing but the speed. A caller-stepped vector has a pool of no threads (its
// vecenv_step runs inline) and the caller steps its envs one by one with vecenv_step_env.
#include "vecenv.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/streams.h"
#include "../util/workpool.h"

#define VECENV_MAX_THREADS       256
#define VECENV_CHUNKS_PER_THREAD 8 // chunks a job is cut into, per thread

// ----------------------------------------------------------------------------
// presets (obs.c: observation types, preset checks)

// env_init with the built-in preset, then its numbers replaced by the caller's: whatever
// env_init sets up besides the preset stays env.c's business.
static int env_init_preset(Env *env, const EnvPreset *p, int mode, int difficulty, uint64_t seed) {
    if (env_preset_check(p) != ENV_OK) return VECENV_ERR_ARG;
    if (env_init_flavour(env, p->id, mode, difficulty, seed) != ENV_OK) return VECENV_ERR_ARG;
    const char *id = env->preset.id; // the table's own string, which outlives the caller's
    env->preset = *p;
    env->preset.id = id;
    env_reset(env, seed);
    return ENV_OK;
}

Env *env_new_preset(const EnvPreset *p, uint64_t seed) {
    if (!p) return NULL;
    if (env_preset_check(p) != ENV_OK) return NULL;
    Env *env = malloc(sizeof *env);
    if (env == NULL) return NULL;
    env_init_preset(env, p, 0, 0, seed);
    return env;
}

// ----------------------------------------------------------------------------
// the envs and their work

// What an env does when its turn comes: ALE's EnvVectorizer queues actions the same way.
typedef enum { JOB_STEP, JOB_RESET, JOB_REPORT } JobKind;

// What the vector env keeps of env i besides the env itself: its episode and its queued job.
typedef struct {
    // env i's episode j is seeded with rng_key(base_seed, base_index, j, the vector's stream word)
    uint64_t base_seed;
    int64_t base_index, episode;
    double ep_return; // running return of the current episode
    int64_t ep_length, ep_frames;
    int64_t frame_number; // without atari: frames since the last seeded reset
    bool over;            // the env's last step ended its episode
    uint8_t job_kind;     // JobKind
    int32_t job_action;
    bool job_seeded; // the reset starts the env's stream again with job_seed
    uint64_t job_seed;
    int64_t job_index;
} EnvSlot;

struct VecEnv {
    int n, n_threads, obs_type, autoreset, batch;
    uint32_t stream; // the word of the episode seeds
    bool caller;     // caller-stepped
    size_t obs_size;
    Env *envs; // (N,) without atari
    bool is_atari;
    AtariConfig atari_cfg;
    AreaResize resize;
    AtariEnv *aenvs;       // (N,) with atari
    AtariScratch *scratch; // (workers,) with atari
    int n_scratch;
    EnvSlot *slot; // (N,)
    bool started;  // a full reset has happened
    // the work queue: env ids in the order their work was queued; each env at most once
    int *queue, q_head, q_len;
    int *rows;      // (B,) env of each row of the running job
    int *last_rows; // (B,) env of each row of the last returned batch
    int job_rows;
    const VecOut *out;
    WorkPool *pool; // n_threads - 1 threads; the caller claims chunks too
    int chunk;      // rows per part of the running job
    int pin_offset; // thread_affinity_offset, -1: none
    bool *pinned;   // (n_threads,) a pool thread has pinned itself
};

uint64_t vecenv_episode_seed(uint64_t seed, int env_index, int64_t episode) {
    return stream_env_episode(seed, (uint64_t)env_index, (uint64_t)episode, STREAM_VECENV);
}

// A new episode of env i: seeded, its stream starts again from (seed, index); else it goes on.
static void env_start(VecEnv *v, int i, bool seeded, uint64_t seed, int64_t index, int worker) {
    if (seeded) {
        v->slot[i].base_seed = seed;
        v->slot[i].base_index = index;
        v->slot[i].episode = 0;
        v->slot[i].frame_number = 0;
    } else {
        v->slot[i].episode++;
    }
    v->slot[i].ep_return = 0.0;
    v->slot[i].ep_length = 0;
    v->slot[i].ep_frames = 0;
    v->slot[i].over = false;
    if (v->is_atari) {
        atari_env_reset(&v->aenvs[i], seeded ? (int64_t)(seed & 0x7fffffff) : -1, &v->scratch[worker]);
    } else {
        const EnvSlot *s = &v->slot[i];
        env_reset(
            &v->envs[i], stream_env_episode(s->base_seed, (uint64_t)s->base_index, (uint64_t)s->episode, v->stream));
    }
}

static void write_obs(const VecEnv *v, int i, uint8_t *dst) {
    if (v->is_atari)
        atari_env_obs(&v->aenvs[i], dst);
    else
        env_render_obs(&v->envs[i], v->obs_type, dst);
}

// Row r reports env i as it is now: observation, counters, and the given reward and flags.
static void write_row(VecEnv *v, int r, int i, double reward, bool term, bool trunc) {
    const VecOut *out = v->out;
    write_obs(v, i, out->obs + (size_t)r * v->obs_size);
    out->rewards[r] = reward;
    out->terminated[r] = term;
    out->truncated[r] = trunc;
    if (out->env_ids) out->env_ids[r] = i;
    if (v->is_atari) {
        if (out->frame_number) out->frame_number[r] = v->aenvs[i].frame_number;
        if (out->episode_frame_number) out->episode_frame_number[r] = v->aenvs[i].episode_frame_number;
    } else {
        if (out->frame_number) out->frame_number[r] = v->slot[i].frame_number;
        if (out->episode_frame_number) out->episode_frame_number[r] = v->envs[i].frames;
    }
}

// One step of env i's game; returns the reward, sets the flags, counts the episode.
static double env_advance(VecEnv *v, int i, int action, bool *term, bool *trunc, int *n_frames, int worker) {
    double reward;
    int frames;
    if (v->is_atari) {
        AtariEnv *a = &v->aenvs[i];
        int64_t before = a->elapsed;
        atari_env_step(a, action, &v->scratch[worker]);
        reward = a->reward;
        *term = atari_env_terminated(a);
        *trunc = atari_env_truncated(a);
        frames = (int)(a->elapsed - before);
    } else {
        EnvStep st;
        env_step(&v->envs[i], action, &st); // never done: the caller resets ended envs
        reward = st.reward;
        *term = st.terminated;
        *trunc = st.truncated;
        frames = st.frames;
        v->slot[i].frame_number += st.frames;
    }
    v->slot[i].ep_return += reward;
    v->slot[i].ep_length += 1;
    v->slot[i].ep_frames += frames;
    *n_frames = frames;
    return reward;
}

static void row_run(VecEnv *v, int r, int worker) {
    const VecOut *out = v->out;
    int i = v->rows[r];
    switch ((JobKind)v->slot[i].job_kind) {
        case JOB_RESET:
            env_start(v, i, v->slot[i].job_seeded, v->slot[i].job_seed, v->slot[i].job_index, worker);
            write_row(v, r, i, 0.0, false, false);
            return;
        case JOB_REPORT: write_row(v, r, i, 0.0, false, false); return;
        case JOB_STEP: break;
    }
    if (v->autoreset == VECENV_NEXT_STEP && v->slot[i].over) { // the step after the end resets
        env_start(v, i, false, 0, 0, worker);
        write_row(v, r, i, 0.0, false, false);
        return;
    }
    bool term, trunc;
    int frames;
    double reward = env_advance(v, i, v->slot[i].job_action, &term, &trunc, &frames, worker);
    if (term || trunc) {
        if (out->episode_return) out->episode_return[r] = v->slot[i].ep_return;
        if (out->episode_length) out->episode_length[r] = v->slot[i].ep_length;
        if (out->episode_frames) out->episode_frames[r] = v->slot[i].ep_frames;
        v->slot[i].over = true;
        if (v->autoreset == VECENV_SAME_STEP) {
            if (out->final_obs) write_obs(v, i, out->final_obs + (size_t)r * v->obs_size);
            env_start(v, i, false, 0, 0, worker);
        }
    }
    write_row(v, r, i, reward, term, trunc);
}

// ----------------------------------------------------------------------------
// the pool (util/workpool.h: the project's one pool)

static void run_part(void *ctx, int part, int worker) {
    VecEnv *v = ctx;
    if (v->pin_offset >= 0 && worker < v->n_threads - 1 && !v->pinned[worker]) {
        // ale-py's thread_affinity_offset: pool thread k on core (offset + k) % cores
        v->pinned[worker] = true;
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (cores > 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET((int)((v->pin_offset + worker) % cores), &set);
            pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        }
    }
    int lo = part * v->chunk;
    int hi = lo + v->chunk < v->job_rows ? lo + v->chunk : v->job_rows;
    for (int r = lo; r < hi; r++) row_run(v, r, worker);
}

// Runs the rows' jobs in chunks on the pool, the caller claiming chunks too.
static void run_job(VecEnv *v, int rows) {
    v->job_rows = rows;
    int per = v->n_threads * VECENV_CHUNKS_PER_THREAD;
    v->chunk = (rows + per - 1) / per;
    workpool_run(v->pool, (rows + v->chunk - 1) / v->chunk, run_part, v);
}

// ----------------------------------------------------------------------------
// public API

static const char *config_check(const EnvPreset *p, const VecConfig *c) {
    const char *bad = env_preset_problem(p);
    if (bad) return bad;
    if (c->num_envs < 1) return "num_envs must be >= 1";
    if (c->autoreset < VECENV_NEXT_STEP || c->autoreset > VECENV_DISABLED) return "unknown autoreset mode";
    if (c->batch_size < 0 || c->batch_size > c->num_envs) return "batch_size must be in [0, num_envs]";
    if (c->mode < 0 || c->mode >= env_num_modes() || c->difficulty < 0 || c->difficulty >= env_num_difficulties())
        return "mode must be 0 or 1 and difficulty 0 to 3 (ALE's for Pong)";
    if (c->atari && (c->mode || c->difficulty)) return "AtariVectorEnv plays the default mode and difficulty only";
    if (c->stream != 0 && !stream_is_env_episode(c->stream))
        return "stream must not be a shared word other than \"venv\" (util/streams.h)";
    if (c->caller_stepped &&
        (c->atari || c->autoreset != VECENV_SAME_STEP || (c->batch_size && c->batch_size != c->num_envs)))
        return "a caller-stepped vector env takes SAME_STEP autoreset, no batches and no Atari preprocessing";
    if (c->atari) return atari_config_check(c->atari);
    if (env_obs_size(c->obs_type) == 0) return "unknown observation type";
    return NULL;
}

VecEnv *vecenv_create(const EnvPreset *p, const VecConfig *c, const char **why) {
    if (!p || !c) {
        if (why) *why = !p ? "no preset (NULL)" : "no configuration (NULL)";
        return NULL;
    }
    const char *bad = config_check(p, c);
    if (why) *why = bad;
    if (bad) return NULL;
    int num_envs = c->num_envs, num_threads = c->num_threads;
    if (num_threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        num_threads = cores > 0 ? (int)cores : 1;
    }
    if (num_threads > VECENV_MAX_THREADS) num_threads = VECENV_MAX_THREADS;
    if (num_threads > num_envs) num_threads = num_envs;
    if (c->caller_stepped) num_threads = 1; // the caller's
    VecEnv *v = calloc(1, sizeof *v);
    if (v == NULL) return NULL;
    v->n = num_envs;
    v->n_threads = num_threads;
    v->autoreset = c->autoreset;
    v->stream = c->stream ? c->stream : STREAM_VECENV;
    v->caller = c->caller_stepped;
    v->batch = c->batch_size > 0 ? c->batch_size : num_envs;
    v->is_atari = c->atari != NULL;
    v->obs_type = v->is_atari ? -1 : c->obs_type;
    size_t n = (size_t)num_envs;
    if (v->is_atari) {
        v->atari_cfg = *c->atari;
        v->obs_size = atari_obs_size(&v->atari_cfg);
        v->aenvs = calloc(n, sizeof(AtariEnv));
    } else {
        v->obs_size = env_obs_size(c->obs_type);
        v->envs = calloc(n, sizeof(Env));
    }
    v->slot = calloc(n, sizeof(EnvSlot));
    v->queue = calloc(3 * n, sizeof(int)); // the three lists of env ids, one allocation
    v->rows = v->queue ? v->queue + n : NULL;
    v->last_rows = v->queue ? v->queue + 2 * n : NULL;
    v->pinned = calloc((size_t)num_threads, sizeof(bool));
    v->pin_offset = c->thread_affinity_offset;
    v->pool = workpool_create(num_threads - 1);
    if ((v->is_atari ? (void *)v->aenvs : (void *)v->envs) == NULL || !v->slot || !v->queue || !v->pinned || !v->pool) {
        vecenv_free(v);
        return NULL;
    }
    if (v->is_atari) {
        const AtariConfig *ac = &v->atari_cfg;
        if (area_resize_init(
                &v->resize, PONG_SCREEN_H, PONG_SCREEN_W, ac->img_height, ac->img_width, ac->grayscale ? 1 : 3) != 0) {
            vecenv_free(v);
            return NULL;
        }
        int workers = workpool_workers(v->pool);
        v->scratch = calloc((size_t)workers, sizeof(AtariScratch));
        if (v->scratch == NULL) {
            vecenv_free(v);
            return NULL;
        }
        v->n_scratch = workers;
        for (int w = 0; w < workers; w++) {
            if (atari_scratch_init(&v->scratch[w], ac) != 0) {
                vecenv_free(v);
                return NULL;
            }
        }
        for (int i = 0; i < num_envs; i++) {
            if (atari_env_init(&v->aenvs[i], ac, &v->resize, vecenv_episode_seed(0, i, 0)) != 0) {
                vecenv_free(v);
                return NULL;
            }
        }
    } else {
        for (int i = 0; i < num_envs; i++)
            env_init_preset(&v->envs[i], p, c->mode, c->difficulty, vecenv_episode_seed(0, i, 0));
    }
    return v;
}

VecEnv *vecenv_new(const EnvPreset *p, int num_envs, int num_threads, int obs_type) {
    if (!p) return NULL;
    VecConfig c = { .num_envs = num_envs,
        .num_threads = num_threads,
        .obs_type = obs_type,
        .autoreset = VECENV_SAME_STEP,
        .batch_size = 0,
        .thread_affinity_offset = -1,
        .atari = NULL,
        .stream = 0,
        .caller_stepped = false };
    return vecenv_create(p, &c, NULL);
}

void vecenv_free(VecEnv *v) {
    if (!v) return;
    if (v == NULL) return;
    workpool_destroy(v->pool);
    if (v->aenvs)
        for (int i = 0; i < v->n; i++) atari_env_free(&v->aenvs[i]);
    for (int w = 0; v->scratch && w < v->n_scratch; w++) atari_scratch_free(&v->scratch[w]);
    free(v->scratch);
    area_resize_free(&v->resize);
    free(v->aenvs);
    free(v->envs);
    free(v->slot);
    free(v->queue); // and rows, last_rows
    free(v->pinned);
    free(v);
}

int vecenv_num_threads(const VecEnv *v) { return v ? v->n_threads : 0; }
int vecenv_batch_size(const VecEnv *v) { return v ? v->batch : 0; }
size_t vecenv_obs_size(const VecEnv *v) { return v ? v->obs_size : 0; }

const Env *vecenv_env(const VecEnv *v, int i) {
    if (!v) return NULL;
    if (i < 0 || i >= v->n) return NULL;
    return v->is_atari ? &v->aenvs[i].env : &v->envs[i];
}

int vecenv_clone(const VecEnv *v, int i, bool include_rng, uint8_t *buf) {
    if (!v || !buf) return VECENV_ERR_ARG;
    if (i < 0 || i >= v->n || v->is_atari) return VECENV_ERR_ARG;
    env_clone(&v->envs[i], include_rng, buf);
    return ENV_OK;
}

int vecenv_restore(VecEnv *v, int i, const uint8_t *buf) {
    if (!v || !buf) return VECENV_ERR_ARG;
    if (i < 0 || i >= v->n || v->is_atari) return VECENV_ERR_ARG;
    Env *e = &v->envs[i];
    int rc = env_restore(e, buf);
    if (rc != ENV_OK) return rc;
    v->slot[i].ep_return = pong_score_agent(&e->game) - pong_score_cpu(&e->game);
    v->slot[i].ep_length = e->steps;
    v->slot[i].ep_frames = e->frames;
    v->slot[i].over = e->terminated || e->truncated;
    return ENV_OK;
}

int vecenv_set_repeat_prob(VecEnv *v, int i, double prob) {
    if (!v) return VECENV_ERR_ARG;
    if (i < 0 || i >= v->n || v->is_atari) return VECENV_ERR_ARG;
    return env_set_repeat_prob(&v->envs[i], prob) ? ENV_OK : VECENV_ERR_ARG;
}

int vecenv_env_counters(const VecEnv *v, int i, VecEnvCounters *c) {
    if (!v || !c) return VECENV_ERR_ARG;
    if (i < 0 || i >= v->n) return VECENV_ERR_ARG;
    *c = (VecEnvCounters){ v->slot[i].episode, v->slot[i].ep_return, v->slot[i].ep_length };
    return ENV_OK;
}

int vecenv_set_counters(VecEnv *v, int i, const VecEnvCounters *c) {
    if (!v || !c) return VECENV_ERR_ARG;
    if (i < 0 || i >= v->n) return VECENV_ERR_ARG;
    // Counters from a file are held to what a real run reaches, as env_restore holds a state:
    // an episode's return is its score difference (-21..21), its length at most the step cap,
    // and no count past ENV_COUNT_MAX, so that the next step cannot overflow one.
    const EnvPreset *p = &vecenv_env(v, i)->preset;
    const int64_t max_length = p->max_steps > 0 ? p->max_steps : ENV_COUNT_MAX;
    if (c->episode < 0 || c->episode > ENV_COUNT_MAX || c->ep_length < 0 || c->ep_length > max_length ||
        !(c->ep_return >= -PONG_WIN_SCORE && c->ep_return <= PONG_WIN_SCORE))
        return VECENV_ERR_ARG;
    v->slot[i].episode = c->episode;
    v->slot[i].ep_return = c->ep_return;
    v->slot[i].ep_length = c->ep_length;
    return ENV_OK;
}

// ----------------------------------------------------------------------------
// caller-stepped: env i's slot and game alone, so distinct envs may be stepped at once

int vecenv_reset_env(VecEnv *v, int i, uint64_t seed) {
    if (!v) return VECENV_ERR_ARG;
    if (!v->caller || i < 0 || i >= v->n) return VECENV_ERR_ARG;
    env_start(v, i, true, seed, i, 0);
    return ENV_OK;
}

int vecenv_step_env(VecEnv *v, int i, int action, VecEnvStep *out) {
    if (!v || !out) return VECENV_ERR_ARG;
    if (!v->caller || i < 0 || i >= v->n) return VECENV_ERR_ARG;
    if (action < 0 || action >= ACTION_COUNT) return ENV_ERR_ACTION;
    bool term, trunc;
    int frames;
    *out = (VecEnvStep){ 0 };
    out->reward = env_advance(v, i, action, &term, &trunc, &frames, 0);
    out->terminated = term;
    out->truncated = trunc;
    out->frames = frames;
    if (term || trunc) {
        out->episode_return = v->slot[i].ep_return;
        out->episode_length = v->slot[i].ep_length;
        out->episode_frames = v->slot[i].ep_frames;
        env_start(v, i, false, 0, 0, 0);
    }
    return ENV_OK;
}

static bool out_ok(const VecOut *out) { return out && out->obs && out->rewards && out->terminated && out->truncated; }

static void queue_push(VecEnv *v, int i) {
    v->queue[(v->q_head + v->q_len) % v->n] = i;
    v->q_len++;
}

// The next batch: the first B envs of the queue, run, and remembered for the next actions.
static void run_batch(VecEnv *v, const VecOut *out) {
    for (int r = 0; r < v->batch; r++) {
        v->rows[r] = v->queue[v->q_head];
        v->q_head = (v->q_head + 1) % v->n;
        v->q_len--;
    }
    v->out = out;
    run_job(v, v->batch);
    v->out = NULL;
    memcpy(v->last_rows, v->rows, (size_t)v->batch * sizeof(int));
}

// A full reset: every env queued for a reset in index order, then the first batch run.
// seeds NULL: every env goes on with its stream.
static void reset_all(VecEnv *v, const uint64_t *seeds, const VecOut *out, bool index_is_env) {
    v->q_head = v->q_len = 0;
    for (int i = 0; i < v->n; i++) {
        v->slot[i].job_kind = JOB_RESET;
        v->slot[i].job_seeded = seeds != NULL;
        v->slot[i].job_seed = seeds ? seeds[i] : 0;
        v->slot[i].job_index = index_is_env ? i : 0;
        queue_push(v, i);
    }
    v->started = true;
    run_batch(v, out);
}

int vecenv_reset(VecEnv *v, uint64_t seed, const VecOut *out) {
    if (!v || !out) return VECENV_ERR_ARG;
    if (!out_ok(out)) return VECENV_ERR_ARG;
    uint64_t *seeds = malloc((size_t)v->n * sizeof(uint64_t));
    if (seeds == NULL) return VECENV_ERR_ARG;
    // ours: env i's episodes from the stream (seed, i); ale-py: reset(seed=s) seeds env i with s + i
    for (int i = 0; i < v->n; i++) seeds[i] = v->is_atari ? seed + (uint64_t)i : seed;
    reset_all(v, seeds, out, !v->is_atari);
    free(seeds);
    return ENV_OK;
}

int vecenv_reset_mask(VecEnv *v, const bool *mask, const int64_t *seeds, const VecOut *out) {
    if (!v || !out) return VECENV_ERR_ARG;
    if (!out_ok(out)) return VECENV_ERR_ARG;
    bool all = true;
    for (int i = 0; mask && i < v->n; i++) all &= mask[i];
    if (all) {
        uint64_t *s = NULL;
        if (seeds) {
            s = malloc((size_t)v->n * sizeof(uint64_t));
            if (s == NULL) return VECENV_ERR_ARG;
        }
        for (int i = 0; s && i < v->n; i++) s[i] = (uint64_t)seeds[i];
        // a seed of -1 goes on with the env's stream
        for (int i = 0; s && i < v->n; i++) v->slot[i].job_seeded = seeds[i] >= 0;
        v->q_head = v->q_len = 0;
        for (int i = 0; i < v->n; i++) {
            v->slot[i].job_kind = JOB_RESET;
            v->slot[i].job_seeded = seeds != NULL && seeds[i] >= 0;
            v->slot[i].job_seed = s ? s[i] : 0;
            v->slot[i].job_index = 0;
            queue_push(v, i);
        }
        free(s);
        v->started = true;
        run_batch(v, out);
        return ENV_OK;
    }
    // a partial reset (ale-py: sync mode only, after a full reset); the others report
    if (!v->started || v->batch != v->n) return VECENV_ERR_ARG;
    for (int i = 0; i < v->n; i++) {
        v->slot[i].job_kind = mask[i] ? JOB_RESET : JOB_REPORT;
        v->slot[i].job_seeded = mask[i] && seeds != NULL && seeds[i] >= 0;
        v->slot[i].job_seed = seeds ? (uint64_t)seeds[i] : 0;
        v->slot[i].job_index = 0;
        v->rows[i] = i;
    }
    v->q_head = v->q_len = 0;
    for (int i = 0; i < v->n; i++) queue_push(v, i);
    run_batch(v, out);
    return ENV_OK;
}

int vecenv_step(VecEnv *v, const int32_t *actions, const VecOut *out, int *bad_index) {
    if (!v || !actions || !out) return VECENV_ERR_ARG;
    if (!out_ok(out) || actions == NULL || !v->started) return VECENV_ERR_ARG;
    for (int r = 0; r < v->batch; r++) {
        if (actions[r] < 0 || actions[r] >= ACTION_COUNT) {
            if (bad_index) *bad_index = r;
            return ENV_ERR_ACTION;
        }
        if (v->autoreset == VECENV_DISABLED && v->slot[v->last_rows[r]].over) {
            if (bad_index) *bad_index = r;
            return ENV_ERR_DONE;
        }
    }
    for (int r = 0; r < v->batch; r++) {
        int i = v->last_rows[r];
        v->slot[i].job_kind = JOB_STEP;
        v->slot[i].job_action = actions[r];
        queue_push(v, i);
    }
    run_batch(v, out);
    return ENV_OK;
}
