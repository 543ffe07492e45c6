// vecenv.c: N environments stepped together by a persistent pool of threads (see vecenv.h).
//
// The envs are cut into chunks of contiguous envs; the calling thread and the pool's threads
// claim chunks until none is left. Every env's randomness comes from (seed, env index,
// episode index), never from the thread, so who steps a chunk changes nothing but the speed.
// Claiming (rather than a fixed share per thread) matters on a busy machine: a worker that
// the scheduler has not run yet claims nothing, and the caller steps its chunks instead of
// waiting a time slice (measured: fixed shares took 1-4 ms a step at load 3.5 on 2 cores).
// Between steps a worker spins briefly on the generation counter before sleeping on the
// condition variable: a Python loop calls step() again within microseconds, and a sleeping
// thread takes tens of microseconds to wake.
#include "vecenv.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VECENV_SEED_PURPOSE 0x76656e76ULL  // "venv": env i, episode j -> rng_key(seed, i, j, this)
// Waiting: a few microseconds of pause, then sched_yield (so a thread that shares our core
// can run: on a busy machine the worker and the caller can land on one core), then sleep.
#define VECENV_SPIN_PAUSE 256
#define VECENV_SPIN_YIELD 64
#define VECENV_MAX_THREADS 256
#define VECENV_CHUNKS_PER_THREAD 8         // chunks a job is cut into, per thread

// ----------------------------------------------------------------------------
// observations and presets

size_t env_obs_size(int obs_type) {
    switch (obs_type) {
    case OBS_RGB: return (size_t)PONG_SCREEN_H * PONG_SCREEN_W * 3;
    case OBS_GRAYSCALE: return (size_t)PONG_SCREEN_H * PONG_SCREEN_W;
    case OBS_RAM: return PONG_RAM_SIZE;
    case OBS_OBS80: return (size_t)PONG_OBS80 * PONG_OBS80;
    default: return 0;
    }
}

// ALE ColourPalette.cpp convertGrayscale: (uint8_t)round(r 0.2989 + g 0.5870 + b 0.1140).
// Most rows of a Pong frame repeat the row above (background, paddles, thick digits): such a
// row is copied, and a new row keeps the last colour's value, as a frame has a handful of
// colours. (Per pixel this was 77 us a frame against 1.9 us for the RGB frame itself.)
void env_render_grayscale(const Env *env, uint8_t *gray) {
    enum { W = PONG_SCREEN_W, H = PONG_SCREEN_H, ROW = 3 * PONG_SCREEN_W };
    uint8_t rgb[H * ROW];                  // 100,800 bytes: fine on the stack
    pong_render_rgb(&env->game, rgb);
    uint32_t last = 0xffffffffu;
    uint8_t lum = 0;
    for (int y = 0; y < H; y++) {
        const uint8_t *src = rgb + (size_t)y * ROW;
        uint8_t *dst = gray + (size_t)y * W;
        if (y > 0 && memcmp(src, src - ROW, ROW) == 0) {
            memcpy(dst, dst - W, W);
            continue;
        }
        for (int x = 0; x < W; x++) {
            const uint8_t *p = src + 3 * x;
            uint32_t c = ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
            if (c != last) {
                lum = (uint8_t)round(p[0] * 0.2989 + p[1] * 0.5870 + p[2] * 0.1140);
                last = c;
            }
            dst[x] = lum;
        }
    }
}

void env_render_obs(const Env *env, int obs_type, uint8_t *out) {
    switch (obs_type) {
    case OBS_RGB: env_render_rgb(env, out); break;
    case OBS_GRAYSCALE: env_render_grayscale(env, out); break;
    case OBS_RAM: env_ram(env, out); break;
    case OBS_OBS80: env_render_obs80(env, out); break;
    default: break;
    }
}

int env_preset_check(const EnvPreset *p) {
    if (p == NULL || env_preset_find(p->id) == NULL) return VECENV_ERR_ARG;
    if (p->frameskip_min < 1 || p->frameskip_max < p->frameskip_min) return VECENV_ERR_ARG;
    if (!(p->repeat_prob >= 0.0 && p->repeat_prob <= 1.0)) return VECENV_ERR_ARG;
    if (p->max_steps < 0 || p->max_frames < 0) return VECENV_ERR_ARG;
    return ENV_OK;
}

// env_init with the built-in preset, then its numbers replaced by the caller's: whatever
// env_init sets up besides the preset stays env.c's business.
static int env_init_preset(Env *env, const EnvPreset *p, uint64_t seed) {
    if (env_preset_check(p) != ENV_OK) return VECENV_ERR_ARG;
    if (env_init(env, p->id, seed) != ENV_OK) return VECENV_ERR_ARG;
    const char *id = env->preset.id;      // the table's own string, which outlives the caller's
    env->preset = *p;
    env->preset.id = id;
    env_reset(env, seed);
    return ENV_OK;
}

Env *env_new_preset(const EnvPreset *p, uint64_t seed) {
    if (env_preset_check(p) != ENV_OK) return NULL;
    Env *env = malloc(sizeof *env);
    if (env == NULL) return NULL;
    env_init_preset(env, p, seed);
    return env;
}

// ----------------------------------------------------------------------------
// the pool

typedef enum { JOB_STEP, JOB_RESET } JobKind;

struct VecEnv {
    int n, n_threads, obs_type;
    size_t obs_size;
    Env *envs;                 // (N,)
    uint64_t seed;
    int64_t *episode;          // (N,) episode index of each env since the last reset(seed)
    double *ep_return;         // (N,) running return of the current episode
    int64_t *ep_length, *ep_frames;
    // the job of the current generation, read-only for the workers while it runs
    JobKind job;
    const int32_t *actions;
    const VecOut *out;
    // the pool: n_threads - 1 workers (tids[1..]); the caller claims chunks too
    pthread_t *tids;
    int n_started;
    pthread_mutex_t mu;
    pthread_cond_t start_cv, done_cv;
    atomic_uint_fast64_t generation;
    int n_chunks, chunk;       // the envs in chunks of `chunk` envs
    // (generation << 32) | next chunk to claim: a thread claims only its generation's chunks
    atomic_uint_fast64_t claim;
    atomic_int chunks_done;    // chunks of the current generation finished
    atomic_bool quit;
};

typedef struct { VecEnv *v; } WorkerArg;

uint64_t vecenv_episode_seed(uint64_t seed, int env_index, int64_t episode) {
    return rng_key(seed, (uint64_t)env_index, (uint64_t)episode, VECENV_SEED_PURPOSE);
}

static uint64_t episode_seed(const VecEnv *v, int i) { return vecenv_episode_seed(v->seed, i, v->episode[i]); }

static void slot_reset(VecEnv *v, int i, const VecOut *out) {
    v->episode[i] = 0;
    v->ep_return[i] = 0.0;
    v->ep_length[i] = 0;
    v->ep_frames[i] = 0;
    env_reset(&v->envs[i], episode_seed(v, i));
    env_render_obs(&v->envs[i], v->obs_type, out->obs + (size_t)i * v->obs_size);
    out->rewards[i] = 0.0;
    out->terminated[i] = false;
    out->truncated[i] = false;
}

static void slot_step(VecEnv *v, int i, int action, const VecOut *out) {
    Env *e = &v->envs[i];
    EnvStep st;
    env_step(e, action, &st);   // actions checked by vecenv_step; never done (autoreset)
    v->ep_return[i] += st.reward;
    v->ep_length[i] += 1;
    v->ep_frames[i] += st.frames;
    out->rewards[i] = (double)st.reward;
    out->terminated[i] = st.terminated;
    out->truncated[i] = st.truncated;
    if (st.terminated || st.truncated) {
        if (out->final_obs) env_render_obs(e, v->obs_type, out->final_obs + (size_t)i * v->obs_size);
        if (out->episode_return) out->episode_return[i] = v->ep_return[i];
        if (out->episode_length) out->episode_length[i] = v->ep_length[i];
        if (out->episode_frames) out->episode_frames[i] = v->ep_frames[i];
        v->episode[i]++;
        v->ep_return[i] = 0.0;
        v->ep_length[i] = 0;
        v->ep_frames[i] = 0;
        env_reset(e, episode_seed(v, i));
    }
    env_render_obs(e, v->obs_type, out->obs + (size_t)i * v->obs_size);
}

static void run_chunk(VecEnv *v, int c) {
    int lo = c * v->chunk;
    int hi = lo + v->chunk < v->n ? lo + v->chunk : v->n;
    if (v->job == JOB_RESET) {
        for (int i = lo; i < hi; i++) slot_reset(v, i, v->out);
    } else {
        for (int i = lo; i < hi; i++) slot_step(v, i, v->actions[i], v->out);
    }
}

// Claims and runs chunks of generation gen until none is left; returns true when this
// thread finished the generation's last chunk.
static bool claim_and_run(VecEnv *v, uint64_t gen) {
    bool last = false;
    uint_fast64_t c = atomic_load_explicit(&v->claim, memory_order_acquire);
    while ((c >> 32) == (gen & 0xffffffffu) && (int)(c & 0xffffffffu) < v->n_chunks) {
        if (!atomic_compare_exchange_weak_explicit(&v->claim, &c, c + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;                       // c now holds the current value: try again
        run_chunk(v, (int)(c & 0xffffffffu));
        if (atomic_fetch_add_explicit(&v->chunks_done, 1, memory_order_acq_rel) + 1 == v->n_chunks)
            last = true;
        c = atomic_load_explicit(&v->claim, memory_order_acquire);
    }
    return last;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

// Waits until done(ctx) is true or the spin budget is spent; returns done(ctx).
static bool spin_until(bool (*done)(void *), void *ctx) {
    for (int i = 0; i < VECENV_SPIN_PAUSE; i++) {
        if (done(ctx)) return true;
        cpu_relax();
    }
    for (int i = 0; i < VECENV_SPIN_YIELD; i++) {
        if (done(ctx)) return true;
        sched_yield();
    }
    return done(ctx);
}

typedef struct { VecEnv *v; uint64_t seen; } GenWait;
static bool generation_moved(void *ctx) {
    GenWait *w = ctx;
    return atomic_load_explicit(&w->v->generation, memory_order_acquire) != w->seen ||
           atomic_load_explicit(&w->v->quit, memory_order_relaxed);
}
static bool all_chunks_done(void *ctx) {
    VecEnv *v = ctx;
    return atomic_load_explicit(&v->chunks_done, memory_order_acquire) == v->n_chunks;
}

static void *worker_main(void *arg) {
    WorkerArg *wa = arg;
    VecEnv *v = wa->v;
    free(wa);
    uint64_t seen = 0;
    for (;;) {
        // The generation only changes under the mutex, so a worker that finds it unchanged
        // under the mutex cannot miss the broadcast.
        GenWait gw = {v, seen};
        spin_until(generation_moved, &gw);
        uint64_t g = atomic_load_explicit(&v->generation, memory_order_acquire);
        if (g == seen) {
            pthread_mutex_lock(&v->mu);
            while ((g = atomic_load(&v->generation)) == seen && !atomic_load(&v->quit))
                pthread_cond_wait(&v->start_cv, &v->mu);
            pthread_mutex_unlock(&v->mu);
        }
        if (atomic_load(&v->quit)) return NULL;
        seen = g;
        if (claim_and_run(v, g)) {
            pthread_mutex_lock(&v->mu);
            pthread_cond_signal(&v->done_cv);
            pthread_mutex_unlock(&v->mu);
        }
    }
}

// Runs the job on every chunk, the caller claiming chunks too, and returns when all are done.
static void run_job(VecEnv *v) {
    uint64_t gen = atomic_load_explicit(&v->generation, memory_order_relaxed) + 1;
    atomic_store_explicit(&v->chunks_done, 0, memory_order_relaxed);
    atomic_store_explicit(&v->claim, (gen & 0xffffffffu) << 32, memory_order_release);
    if (v->n_threads > 1) {
        pthread_mutex_lock(&v->mu);
        atomic_store_explicit(&v->generation, gen, memory_order_release);
        pthread_cond_broadcast(&v->start_cv);
        pthread_mutex_unlock(&v->mu);
    } else {
        atomic_store_explicit(&v->generation, gen, memory_order_release);
    }
    claim_and_run(v, gen);
    if (!all_chunks_done(v)) {              // a worker is finishing its last chunk
        spin_until(all_chunks_done, v);
        if (!all_chunks_done(v)) {
            pthread_mutex_lock(&v->mu);
            while (!all_chunks_done(v)) pthread_cond_wait(&v->done_cv, &v->mu);
            pthread_mutex_unlock(&v->mu);
        }
    }
}

// ----------------------------------------------------------------------------
// public API

VecEnv *vecenv_new(const EnvPreset *p, int num_envs, int num_threads, int obs_type) {
    if (env_preset_check(p) != ENV_OK || num_envs < 1 || env_obs_size(obs_type) == 0) return NULL;
    if (num_threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        num_threads = c > 0 ? (int)c : 1;
    }
    if (num_threads > VECENV_MAX_THREADS) num_threads = VECENV_MAX_THREADS;
    if (num_threads > num_envs) num_threads = num_envs;
    VecEnv *v = calloc(1, sizeof *v);
    if (v == NULL) return NULL;
    v->n = num_envs;
    v->n_threads = num_threads;
    v->obs_type = obs_type;
    v->obs_size = env_obs_size(obs_type);
    v->envs = calloc((size_t)num_envs, sizeof(Env));
    v->episode = calloc((size_t)num_envs, sizeof(int64_t));
    v->ep_return = calloc((size_t)num_envs, sizeof(double));
    v->ep_length = calloc((size_t)num_envs, sizeof(int64_t));
    v->ep_frames = calloc((size_t)num_envs, sizeof(int64_t));
    v->tids = calloc((size_t)num_threads, sizeof(pthread_t));
    pthread_mutex_init(&v->mu, NULL);
    pthread_cond_init(&v->start_cv, NULL);
    pthread_cond_init(&v->done_cv, NULL);
    atomic_init(&v->generation, 0);
    atomic_init(&v->claim, 0);
    atomic_init(&v->chunks_done, 0);
    v->chunk = (num_envs + num_threads * VECENV_CHUNKS_PER_THREAD - 1) / (num_threads * VECENV_CHUNKS_PER_THREAD);
    v->n_chunks = (num_envs + v->chunk - 1) / v->chunk;
    atomic_init(&v->quit, false);
    if (!v->envs || !v->episode || !v->ep_return || !v->ep_length || !v->ep_frames || !v->tids) {
        vecenv_free(v);
        return NULL;
    }
    for (int i = 0; i < num_envs; i++) env_init_preset(&v->envs[i], p, vecenv_episode_seed(0, i, 0));
    for (int k = 1; k < num_threads; k++) {
        WorkerArg *wa = malloc(sizeof *wa);
        if (wa == NULL) { vecenv_free(v); return NULL; }
        wa->v = v;
        if (pthread_create(&v->tids[k], NULL, worker_main, wa) != 0) {
            free(wa);
            vecenv_free(v);
            return NULL;
        }
        v->n_started = k;
    }
    return v;
}

void vecenv_free(VecEnv *v) {
    if (v == NULL) return;
    pthread_mutex_lock(&v->mu);
    atomic_store(&v->quit, true);
    pthread_cond_broadcast(&v->start_cv);
    pthread_mutex_unlock(&v->mu);
    for (int k = 1; k <= v->n_started; k++) pthread_join(v->tids[k], NULL);
    pthread_mutex_destroy(&v->mu);
    pthread_cond_destroy(&v->start_cv);
    pthread_cond_destroy(&v->done_cv);
    free(v->tids);
    free(v->envs);
    free(v->episode);
    free(v->ep_return);
    free(v->ep_length);
    free(v->ep_frames);
    free(v);
}

int vecenv_num_envs(const VecEnv *v) { return v->n; }
int vecenv_num_threads(const VecEnv *v) { return v->n_threads; }
int vecenv_obs_type(const VecEnv *v) { return v->obs_type; }

const Env *vecenv_env(const VecEnv *v, int i) {
    return (i >= 0 && i < v->n) ? &v->envs[i] : NULL;
}

static bool out_ok(const VecOut *out) {
    return out && out->obs && out->rewards && out->terminated && out->truncated;
}

int vecenv_reset(VecEnv *v, uint64_t seed, const VecOut *out) {
    if (!out_ok(out)) return VECENV_ERR_ARG;
    v->seed = seed;
    v->job = JOB_RESET;
    v->out = out;
    run_job(v);
    v->out = NULL;
    return ENV_OK;
}

int vecenv_step(VecEnv *v, const int32_t *actions, const VecOut *out, int *bad_index) {
    if (!out_ok(out) || actions == NULL) return VECENV_ERR_ARG;
    for (int i = 0; i < v->n; i++) {
        if (actions[i] < 0 || actions[i] >= ACTION_COUNT) {
            if (bad_index) *bad_index = i;
            return ENV_ERR_ACTION;
        }
    }
    v->job = JOB_STEP;
    v->actions = actions;
    v->out = out;
    run_job(v);
    v->actions = NULL;
    v->out = NULL;
    return ENV_OK;
}
