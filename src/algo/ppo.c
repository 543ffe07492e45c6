// ppo.c: PPO's rollout, GAE, loss, exact minibatch gradient and Adam step (ppo.h).
#include "ppo.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/digest.h"
#include "../util/mem.h"
#include "../util/rng.h"

const int PPO_ACTION_ID[PPO_ACTIONS] = { ACTION_NOOP, ACTION_RIGHT, ACTION_LEFT };

// stream purposes (rng_key's last word)
#define KEY_ENV 0x70706f65      // "ppoe": env e's episode j
#define KEY_ACT 0x70706f61      // "ppoa": env e's action sampling in iteration i
#define KEY_PERM 0x70706f70     // "ppop": the shuffle of epoch k of iteration i
#define KEY_INIT 0x70706f77     // "ppow": the initial weights
#define N_STATS 6

void ppo_config_default(PpoConfig *c) {
    TrainConfig t;                   // the settings table's defaults (train/config.h)
    train_config_default(&t);
    memset(c, 0, sizeof(*c));
    c->envs = t.envs; c->steps = t.steps;
    c->epochs = t.epochs; c->minibatches = t.minibatches;
    c->chunk = PPO_CHUNK;
    c->hidden = PPO_HIDDEN;
    c->value_hidden = PPO_VALUE_HIDDEN;
    c->coarse = t.coarse != 0;
    c->lr = PPO_LR;
    c->anneal_steps = t.anneal_steps;
    c->gamma = t.gamma; c->lambda = t.lambda;
    c->clip = t.clip;
    c->ent_coef = t.ent_coef; c->vf_coef = t.vf_coef;
    c->max_grad_norm = t.max_grad_norm;
    c->seed = t.seed;
}

const char *ppo_config_check(const PpoConfig *c) {
    if (c->envs < 1 || c->envs > 65536) return "--envs must be in [1, 65536]";
    if (c->steps < 1 || c->steps > 65536) return "--steps must be in [1, 65536]";
    if ((int64_t)c->envs * c->steps > 16777216) return "--envs x --steps must be at most 2^24";
    if (c->epochs < 1) return "--epochs must be at least 1";
    if (c->minibatches < 1 || c->minibatches > c->envs * c->steps) return "--minibatches must be in [1, envs x steps]";
    if (c->chunk < 1) return "--chunk must be at least 1";
    if (c->hidden < 1 || c->hidden > 4096) return "--hidden must be in [1, 4096]";
    if (c->value_hidden < -1 || ppo_value_units(c) >= c->hidden)
        return "--value-hidden must be less than --hidden (the policy keeps at least one of the H units), or -1 for H/2";
    if (!(c->lr > 0 && c->lr < 1)) return "--lr must be in (0, 1)";
    if (c->anneal_steps < 0) return "--anneal-steps must be >= 0";
    if (!(c->gamma >= 0 && c->gamma <= 1) || !(c->lambda >= 0 && c->lambda <= 1)) return "--gamma and --lambda must be in [0, 1]";
    if (!(c->clip > 0)) return "--clip must be > 0";
    if (!(c->ent_coef >= -1)) return "--ent-coef must be >= -1 (negative: an entropy penalty)";
    if (!(c->vf_coef >= 0)) return "--vf-coef must be >= 0";
    if (!(c->max_grad_norm > 0)) return "--max-grad-norm must be > 0";
    return NULL;
}

// ----------------------------------------------------------------------------
// per-thread scratch of the update

struct PpoThread {
    double *g;               // (n,) float64 gradient of the current chunk: its rows in `crows`, the tail
    RowSet crows;            // W1 rows of the current chunk
    uint8_t *fresh;          // (D,) per non-zero of a sample: its row is new to the chunk
    GradSum acc;             // exact sum of this thread's chunks: on `used` and the tail
    RowSet used;
    bool tail_used;
    double *h, *dh;          // (H,)
    int bad;
};

static void thread_free(PpoThread *t) {
    free(t->g); free(t->fresh); free(t->h); free(t->dh);
    rowset_free(&t->crows); rowset_free(&t->used);
    gradsum_free(&t->acc);
}

static int thread_alloc(PpoThread *t, const AcNet *net) {
    memset(t, 0, sizeof(*t));
    t->g = big_calloc(net->n, sizeof(double));
    t->fresh = calloc((size_t)net->D, 1);
    t->h = calloc((size_t)net->H, sizeof(double));
    t->dh = calloc((size_t)net->H, sizeof(double));
    if (!t->g || !t->fresh || !t->h || !t->dh || rowset_alloc(&t->crows, net->D) ||
        rowset_alloc(&t->used, net->D) || gradsum_alloc(&t->acc, net->n)) { thread_free(t); return -1; }
    return 0;
}

// ----------------------------------------------------------------------------
// create / destroy

static uint64_t env_episode_seed(uint64_t seed, int e, int64_t j) { return rng_key(seed, (uint64_t)e, (uint64_t)j, KEY_ENV); }

void ppo_destroy(Ppo *p) {
    if (!p) return;
    if (p->th) for (int i = 0; i < p->threads; i++) thread_free(&p->th[i]);
    free(p->th);
    if (p->xidx) for (int e = 0; e < p->cfg.envs; e++) { free(p->xidx[e]); free(p->xsign[e]); }
    free(p->xidx); free(p->xsign); free(p->xcap); free(p->xoff);
    free(p->envs);
    free(p->action); free(p->logp); free(p->value); free(p->reward); free(p->adv); free(p->ret);
    free(p->done); free(p->next_value); free(p->ended); free(p->ended_slot);
    free(p->perm); free(p->mb_adv); free(p->rowsq); free(p->g); free(p->row_mark); free(p->chunk_stats);
    free(p->wire.p); free(p->pos); free(p->x); free(p->digests);
    rowset_free(&p->rows);
    free(p->adam_m); free(p->adam_v);
    acnet_free(&p->net);
    free(p);
}

Ppo *ppo_create(const PpoConfig *cfg, const char *env_id, char *err, size_t errlen) {
    const char *why = ppo_config_check(cfg);
    if (why) { snprintf(err, errlen, "%s", why); return NULL; }
    if (!env_preset_find(env_id)) { snprintf(err, errlen, "unknown env id '%s'", env_id); return NULL; }
    Ppo *p = calloc(1, sizeof(*p));
    if (!p) goto oom;
    p->cfg = *cfg;
    const int N = cfg->envs, T = cfg->steps;
    const size_t B = (size_t)N * T;
    const int M = (int)(B / (size_t)cfg->minibatches);
    const int chunks = (M + cfg->chunk - 1) / cfg->chunk;
    if (acnet_alloc(&p->net, ppo_input_size(cfg->coarse), cfg->hidden, PPO_ACTIONS)) goto oom;
    p->net.Hv = ppo_value_units(cfg);
    acnet_init_random(&p->net, rng_key(cfg->seed, 0, 0, KEY_INIT));
    p->adam_m = big_calloc(p->net.n, sizeof(double));
    p->adam_v = big_calloc(p->net.n, sizeof(double));
    p->envs = calloc((size_t)N, sizeof(PpoEnv));
    p->xoff = calloc((size_t)N * (T + 1), sizeof(uint32_t));
    p->xidx = calloc((size_t)N, sizeof(uint16_t *));
    p->xsign = calloc((size_t)N, sizeof(int8_t *));
    p->xcap = calloc((size_t)N, sizeof(size_t));
    p->action = calloc(B, 1);
    p->done = calloc(B, 1);
    p->logp = calloc(B, sizeof(double));
    p->value = calloc(B, sizeof(double));
    p->reward = calloc(B, sizeof(double));
    p->adv = calloc(B, sizeof(double));
    p->ret = calloc(B, sizeof(double));
    p->next_value = calloc((size_t)N, sizeof(double));
    p->ended = calloc(B, sizeof(PpoEpisode));
    p->ended_slot = calloc(B, sizeof(PpoEpisode));
    p->perm = calloc(B, sizeof(int32_t));
    p->mb_adv = calloc((size_t)M, sizeof(double));
    p->rowsq = calloc((size_t)p->net.D, sizeof(double));
    p->g = big_calloc(p->net.n, sizeof(double));
    p->row_mark = calloc((size_t)p->net.D, 1);
    p->chunk_stats = calloc((size_t)chunks * N_STATS, sizeof(double));
    p->x = calloc((size_t)chunks * N_STATS, sizeof(int64_t));
    p->pos = calloc((size_t)p->net.D, sizeof(int32_t));
    p->env0 = 0;
    p->env1 = N;
    if (!p->x || !p->pos || !p->adam_m || !p->adam_v || !p->envs || !p->xoff || !p->xidx || !p->xsign || !p->xcap || !p->action ||
        !p->done || !p->logp || !p->value || !p->reward || !p->adv || !p->ret || !p->next_value || !p->ended || !p->ended_slot ||
        !p->perm || !p->mb_adv || !p->rowsq || !p->g || !p->row_mark || !p->chunk_stats ||
        rowset_alloc(&p->rows, p->net.D)) goto oom;
    for (int e = 0; e < N; e++) {
        PpoEnv *v = &p->envs[e];
        if (env_init(&v->env, env_id, env_episode_seed(cfg->seed, e, 0)) != ENV_OK) goto oom;
        v->episode = 1;
    }
    return p;
oom:
    snprintf(err, errlen, "out of memory");
    ppo_destroy(p);
    return NULL;
}

int ppo_bind(Ppo *p, Pool *pool, Comm *comm) {
    p->pool = pool;
    p->comm = comm;
    const int rank = comm ? comm->rank : 0, ranks = comm ? comm->size : 1, N = p->cfg.envs;
    p->env0 = (int)((int64_t)N * rank / ranks);
    p->env1 = (int)((int64_t)N * (rank + 1) / ranks);
    const int n = pool_threads(pool);
    if (n == p->threads) return 0;
    for (int i = 0; i < p->threads; i++) thread_free(&p->th[i]);
    free(p->th);
    free(p->digests);
    p->threads = 0;
    p->th = calloc((size_t)n, sizeof(PpoThread));
    p->digests = calloc((size_t)n, sizeof(uint64_t));
    if (!p->th || !p->digests) return -1;
    for (int i = 0; i < n; i++) {
        if (thread_alloc(&p->th[i], &p->net)) return -1;
        p->threads = i + 1;
    }
    return 0;
}

// ----------------------------------------------------------------------------
// the envs' state as float64 (a learner's arrays are float64): per env its episode counter,
// running return and length, its ALE-style state (env_clone, with its random stream) and its
// previous frame, the bytes packed 4 to a double (exact: below 2^32)

#define REC_BYTES (ENV_STATE_BYTES + POLICY_D)
#define REC_DOUBLES (3 + (REC_BYTES + 3) / 4)

size_t ppo_envs_doubles(const Ppo *p) { return (size_t)p->cfg.envs * REC_DOUBLES; }

void ppo_envs_save(const Ppo *p, double *out) {
    uint8_t bytes[REC_BYTES + 3];
    for (int e = 0; e < p->cfg.envs; e++) {
        const PpoEnv *v = &p->envs[e];
        double *o = out + (size_t)e * REC_DOUBLES;
        o[0] = (double)v->episode; o[1] = v->ep_return; o[2] = (double)v->ep_len;
        memset(bytes, 0, sizeof(bytes));
        env_clone(&v->env, true, bytes);
        memcpy(bytes + ENV_STATE_BYTES, v->prev, POLICY_D);
        for (int k = 0; k < (REC_BYTES + 3) / 4; k++)
            o[3 + k] = (double)((uint32_t)bytes[4 * k] | (uint32_t)bytes[4 * k + 1] << 8 |
                                (uint32_t)bytes[4 * k + 2] << 16 | (uint32_t)bytes[4 * k + 3] << 24);
    }
}

int ppo_envs_load(Ppo *p, const double *in) {
    uint8_t bytes[REC_BYTES + 3];
    for (int e = 0; e < p->cfg.envs; e++) {
        PpoEnv *v = &p->envs[e];
        const double *o = in + (size_t)e * REC_DOUBLES;
        for (int k = 0; k < (REC_BYTES + 3) / 4; k++) {
            const double d = o[3 + k];
            if (!(d >= 0 && d < 4294967296.0) || d != (double)(uint32_t)d) return -1;
            const uint32_t u = (uint32_t)d;
            for (int b = 0; b < 4; b++) bytes[4 * k + b] = (uint8_t)(u >> (8 * b));
        }
        if (!(o[0] >= 1 && o[0] < 9e15) || !(fabs(o[1]) <= 1e6) || !(o[2] >= 0 && o[2] < 9e15)) return -1;
        for (int k = 0; k < POLICY_D; k++) if (bytes[ENV_STATE_BYTES + k] > 1) return -1;
        if (env_restore(&v->env, bytes) != ENV_OK) return -1;
        memcpy(v->prev, bytes + ENV_STATE_BYTES, POLICY_D);
        v->episode = (int64_t)o[0]; v->ep_return = o[1]; v->ep_len = (int64_t)o[2];
    }
    return 0;
}

// ----------------------------------------------------------------------------
// rollout

SparseX ppo_sample_x(const Ppo *p, int s) {
    const int T = p->cfg.steps, e = s / T, t = s % T;
    const uint32_t *off = p->xoff + (size_t)e * (T + 1);
    return (SparseX){ (int)(off[t + 1] - off[t]), p->xidx[e] + off[t], p->xsign[e] + off[t] };
}

// The input of a state (ppo.h): the frame's pixels (+1), then at 6400 + k the difference
// cur - prev; with coarse views, then the coarse view of the frame (+1) and its difference from
// the previous frame's. The scans skip 8 zero bytes at a time: ~99% of the 80x80 grid is zeros.
static void coarse_view(const uint8_t *f, uint8_t *c) {
    memset(c, 0, PPO_COARSE);
    for (int b = 0; b < POLICY_D; b += 8) {
        uint64_t w;
        memcpy(&w, f + b, 8);
        if (!w) continue;
        for (int k = b; k < b + 8; k++) {
            if (!f[k]) continue;
            const int y = k / 80, x = k % 80;
            c[(y / PPO_POOL) * (80 / PPO_POOL) + x / PPO_POOL] = 1;
            c[PPO_COARSE_ROWS + (x / PPO_BAND) * 80 + y] = 1;
            c[PPO_COARSE_COLS + (y / PPO_BAND) * 80 + x] = 1;
        }
    }
}

int ppo_input(const uint8_t *cur, const uint8_t *prev, bool coarse, uint16_t *idx, int8_t *sign) {
    int n = 0;
    for (int b = 0; b < POLICY_D; b += 8) {
        uint64_t c;
        memcpy(&c, cur + b, 8);
        if (!c) continue;
        for (int k = b; k < b + 8; k++)
            if (cur[k]) { idx[n] = (uint16_t)k; sign[n++] = 1; }
    }
    for (int b = 0; b < POLICY_D; b += 8) {
        uint64_t c, q;
        memcpy(&c, cur + b, 8);
        memcpy(&q, prev + b, 8);
        if (c == q) continue;
        for (int k = b; k < b + 8; k++)
            if (cur[k] != prev[k]) { idx[n] = (uint16_t)(POLICY_D + k); sign[n++] = (int8_t)(cur[k] - prev[k]); }
    }
    if (!coarse) return n;
    uint8_t cc[PPO_COARSE], pc[PPO_COARSE];
    coarse_view(cur, cc);
    coarse_view(prev, pc);
    for (int k = 0; k < PPO_COARSE; k++)
        if (cc[k]) { idx[n] = (uint16_t)(2 * POLICY_D + k); sign[n++] = 1; }
    for (int k = 0; k < PPO_COARSE; k++)
        if (cc[k] != pc[k]) { idx[n] = (uint16_t)(2 * POLICY_D + PPO_COARSE + k); sign[n++] = (int8_t)(cc[k] - pc[k]); }
    return n;
}

static int env_reserve(Ppo *p, int e, size_t need) {
    if (need <= p->xcap[e]) return 0;
    size_t cap = p->xcap[e] ? p->xcap[e] : 16384;
    while (cap < need) cap *= 2;
    uint16_t *i = realloc(p->xidx[e], cap * sizeof(uint16_t));
    if (!i) return -1;
    p->xidx[e] = i;
    int8_t *s = realloc(p->xsign[e], cap);
    if (!s) return -1;
    p->xsign[e] = s;
    p->xcap[e] = cap;
    return 0;
}

// Sample an action index from logp with u in [0, 1): the first whose cumulative probability exceeds u.
static int sample_action(const double *logp, int A, double u) {
    double c = 0.0;
    for (int a = 0; a < A - 1; a++) {
        c += exp(logp[a]);
        if (u < c) return a;
    }
    return A - 1;
}

// ----------------------------------------------------------------------------
// acting outside training (eval, record, watch: rl/agent.h), as a rollout does

static int ppo_act_probs(const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u,
                         double *h, double *probs) {
    (void)x;
    const Ppo *p = ap->net;
    static const uint8_t zeros[POLICY_D];
    uint16_t idx[ACNET_D + 2 * PPO_COARSE];
    int8_t sign[ACNET_D + 2 * PPO_COARSE];
    double logits[ACNET_A_MAX], logp[ACNET_A_MAX];
    const int nnz = ppo_input(cur, prev ? prev : zeros, p->cfg.coarse, idx, sign);
    acnet_forward(&p->net, (SparseX){ nnz, idx, sign }, h, logits);
    acnet_log_softmax(logits, PPO_ACTIONS, logp);
    int a = 0;
    if (ap->greedy) { for (int k = 1; k < PPO_ACTIONS; k++) if (logp[k] > logp[a]) a = k; }
    else a = sample_action(logp, PPO_ACTIONS, u);
    for (int k = 0; k < PPO_ACTIONS; k++) probs[k] = exp(logp[k]);
    return PPO_ACTION_ID[a];
}

static int ppo_act(const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h,
                   double *p_up) {
    double probs[PPO_ACTIONS];
    int a = ppo_act_probs(ap, x, cur, prev, u, h, probs);
    *p_up = probs[1];                            // RIGHT: the paddle up
    return a;
}

AgentPolicy ppo_agent_policy(const Ppo *p, bool greedy) {
    return (AgentPolicy){ ppo_act, p, p->net.H, greedy, ppo_act_probs, PPO_ACTION_ID, PPO_ACTIONS };
}

typedef struct { Ppo *p; atomic_int bad; } CollectJob;

static void collect_part(void *ctx, int part, int parts) {
    CollectJob *job = ctx;
    Ppo *p = job->p;
    const int T = p->cfg.steps, A = PPO_ACTIONS, e0 = p->env0, n = p->env1 - p->env0;
    PpoThread *th = &p->th[part];
    uint8_t cur[POLICY_D];
    double logits[ACNET_A_MAX], logp[ACNET_A_MAX];
    for (int e = e0 + (int)((int64_t)n * part / parts); e < e0 + (int)((int64_t)n * (part + 1) / parts); e++) {
        PpoEnv *v = &p->envs[e];
        uint32_t *off = p->xoff + (size_t)e * (T + 1);
        Rng rng;
        rng_seed(&rng, rng_key(p->cfg.seed, (uint64_t)p->iteration, (uint64_t)e, KEY_ACT));
        v->frames = 0;
        off[0] = 0;
        for (int t = 0; t <= T; t++) {
            // the state's input (at t = T: the state after the rollout, for its value)
            if (env_reserve(p, e, (size_t)off[t] + (size_t)p->net.D)) { atomic_store(&job->bad, 1); return; }
            uint16_t *idx = p->xidx[e] + off[t];
            int8_t *sign = p->xsign[e] + off[t];
            env_render_obs80(&v->env, cur);
            int nnz = ppo_input(cur, v->prev, p->cfg.coarse, idx, sign);
            if (t == T) {
                // (the next rollout starts from the same state and recomputes it)
                p->next_value[e] = acnet_forward(&p->net, (SparseX){ nnz, idx, sign }, th->h, logits);
                break;
            }
            off[t + 1] = off[t] + (uint32_t)nnz;
            const size_t s = (size_t)e * T + t;
            p->value[s] = acnet_forward(&p->net, (SparseX){ nnz, idx, sign }, th->h, logits);
            acnet_log_softmax(logits, A, logp);
            int a = sample_action(logp, A, rng_uniform(&rng));
            p->action[s] = (uint8_t)a;
            p->logp[s] = logp[a];
            memcpy(v->prev, cur, POLICY_D);
            EnvStep st;
            env_step(&v->env, PPO_ACTION_ID[a], &st);
            v->frames += st.frames;
            p->reward[s] = st.reward;
            v->ep_return += st.reward;
            v->ep_len++;
            p->done[s] = st.terminated || st.truncated;
            if (p->done[s]) {
                p->ended_slot[s] = (PpoEpisode){ t, e, v->ep_return, v->ep_len };
                env_reset(&v->env, env_episode_seed(p->cfg.seed, e, v->episode++));
                memset(v->prev, 0, POLICY_D);        // the first frame's difference is the frame
                v->ep_return = 0; v->ep_len = 0;
            }
        }
    }
}

// ----------------------------------------------------------------------------
// the ranks' exchange of what each played: per env, its index, counters, the value after the
// rollout, its game (env_clone, with its random stream) and previous frame (a bit a pixel),
// then per step its input's size, action, end, log-probability, value and reward, the
// episodes it ended (return, length), and the inputs. The same binary reads what it wrote.

static size_t env_wire_bytes(const Ppo *p, int e) {
    const int T = p->cfg.steps;
    const uint32_t nnz = p->xoff[(size_t)e * (T + 1) + T];
    return 4 + 5 * 8 + 4 + ENV_STATE_BYTES + POLICY_D / 8 + (size_t)T * (4 + 2 + 3 * 8 + 16) + (size_t)nnz * 3;
}

static int wire_pack(Ppo *p) {
    const int T = p->cfg.steps;
    size_t need = 0;
    for (int e = p->env0; e < p->env1; e++) need += env_wire_bytes(p, e);
    if (need > p->wire_cap) {
        uint8_t *bigger = realloc(p->wire.p, need + need / 4);
        if (!bigger) return -1;
        p->wire.p = bigger;
        p->wire_cap = need + need / 4;
    }
    ByteWriter *w = &p->wire;
    w->pos = 0;
    for (int e = p->env0; e < p->env1; e++) {
        const PpoEnv *v = &p->envs[e];
        const uint32_t *off = p->xoff + (size_t)e * (T + 1);
        const size_t s0 = (size_t)e * T;
        bytes_put_u32(w, (uint32_t)e);
        bytes_put(w, &v->episode, 8);
        bytes_put(w, &v->ep_return, 8);
        bytes_put(w, &v->ep_len, 8);
        bytes_put(w, &v->frames, 8);
        bytes_put(w, &p->next_value[e], 8);
        bytes_put_u32(w, off[T]);
        env_clone(&v->env, true, w->p + w->pos);
        w->pos += ENV_STATE_BYTES;
        for (int k = 0; k < POLICY_D; k += 8) {
            uint8_t b = 0;
            for (int j = 0; j < 8; j++) b |= (uint8_t)(v->prev[k + j] << j);
            bytes_put_u8(w, b);
        }
        bytes_put(w, off + 1, sizeof(uint32_t) * (size_t)T);
        bytes_put(w, p->action + s0, (size_t)T);
        bytes_put(w, p->done + s0, (size_t)T);
        bytes_put(w, p->logp + s0, sizeof(double) * (size_t)T);
        bytes_put(w, p->value + s0, sizeof(double) * (size_t)T);
        bytes_put(w, p->reward + s0, sizeof(double) * (size_t)T);
        for (int t = 0; t < T; t++)
            if (p->done[s0 + t]) {
                bytes_put(w, &p->ended_slot[s0 + t].ret, 8);
                bytes_put(w, &p->ended_slot[s0 + t].len, 8);
            }
        bytes_put(w, p->xidx[e], sizeof(uint16_t) * off[T]);
        bytes_put(w, p->xsign[e], off[T]);
    }
    return 0;
}

// Env e's part of the rollout and its state from another rank's bytes. 0, or -1 (malformed,
// or out of memory).
static int wire_unpack_env(Ppo *p, ByteReader *r, int e) {
    const int T = p->cfg.steps;
    PpoEnv *v = &p->envs[e];
    uint32_t *off = p->xoff + (size_t)e * (T + 1);
    const size_t s0 = (size_t)e * T;
    if (bytes_get_u32(r) != (uint32_t)e) return -1;
    bytes_get(r, &v->episode, 8);
    bytes_get(r, &v->ep_return, 8);
    bytes_get(r, &v->ep_len, 8);
    bytes_get(r, &v->frames, 8);
    bytes_get(r, &p->next_value[e], 8);
    const uint32_t nnz = bytes_get_u32(r);
    if (!bytes_take(r, ENV_STATE_BYTES + POLICY_D / 8)) return -1;
    if (env_restore(&v->env, r->p + r->pos) != ENV_OK) return -1;
    r->pos += ENV_STATE_BYTES;
    for (int k = 0; k < POLICY_D; k += 8) {
        const uint8_t b = bytes_get_u8(r);
        for (int j = 0; j < 8; j++) v->prev[k + j] = (uint8_t)(b >> j & 1);
    }
    off[0] = 0;
    bytes_get(r, off + 1, sizeof(uint32_t) * (size_t)T);
    if (off[T] != nnz) return -1;
    for (int t = 0; t < T; t++)
        if (off[t + 1] < off[t] || off[t + 1] - off[t] > (uint32_t)p->net.D) return -1;
    bytes_get(r, p->action + s0, (size_t)T);
    bytes_get(r, p->done + s0, (size_t)T);
    bytes_get(r, p->logp + s0, sizeof(double) * (size_t)T);
    bytes_get(r, p->value + s0, sizeof(double) * (size_t)T);
    bytes_get(r, p->reward + s0, sizeof(double) * (size_t)T);
    for (int t = 0; t < T; t++) {
        if (p->action[s0 + t] >= PPO_ACTIONS || p->done[s0 + t] > 1) return -1;
        if (!p->done[s0 + t]) continue;
        PpoEpisode *ep = &p->ended_slot[s0 + t];
        ep->t = t;
        ep->env = e;
        bytes_get(r, &ep->ret, 8);
        bytes_get(r, &ep->len, 8);
    }
    if (env_reserve(p, e, (size_t)nnz + (size_t)p->net.D)) return -1;
    bytes_get(r, p->xidx[e], sizeof(uint16_t) * nnz);
    bytes_get(r, p->xsign[e], nnz);
    for (uint32_t k = 0; k < nnz; k++)
        if (p->xidx[e][k] >= p->net.D) return -1;
    return r->short_read ? -1 : 0;
}

// Every rank's envs to every rank: then each holds the whole rollout and every env's state.
static int exchange(Ppo *p) {
    Comm *c = p->comm;
    const int N = p->cfg.envs;
    if (wire_pack(p)) { snprintf(p->why, sizeof(p->why), "out of memory"); return -1; }
    const uint8_t *all;
    const size_t *sizes;
    if (c->allgather(c, p->wire.p, p->wire.pos, &all, &sizes, p->why, sizeof(p->why))) return -1;
    for (int q = 0; q < c->size; q++) {
        ByteReader r = { all, sizes[q], 0, false };
        for (int e = (int)((int64_t)N * q / c->size); e < (int)((int64_t)N * (q + 1) / c->size); e++)
            if (q != c->rank && wire_unpack_env(p, &r, e)) {
                snprintf(p->why, sizeof(p->why), "rank %d's rollout of env %d is not one this build wrote "
                         "(or out of memory)", q, e);
                return -1;
            }
        all += sizes[q];
    }
    return 0;
}

int ppo_collect(Ppo *p) {
    const int N = p->cfg.envs, T = p->cfg.steps;
    CollectJob job = { p, 0 };
    memset(p->done, 0, (size_t)N * T);
    pool_for(p->pool, collect_part, &job);
    if (atomic_load(&job.bad)) { snprintf(p->why, sizeof(p->why), "out of memory"); return -1; }
    if (p->comm && p->comm->size > 1 && exchange(p)) return -1;
    // episodes in (t, env) order, whoever played them
    p->n_ended = 0;
    for (int t = 0; t < T; t++)
        for (int e = 0; e < N; e++)
            if (p->done[(size_t)e * T + t]) p->ended[p->n_ended++] = p->ended_slot[(size_t)e * T + t];
    p->agent_steps += (int64_t)N * T;
    p->episodes += p->n_ended;
    p->frames = 0;
    for (int e = 0; e < N; e++) p->frames += p->envs[e].frames;
    return 0;
}

// ----------------------------------------------------------------------------
// GAE, as CleanRL: done[t] cuts the bootstrap from step t to t + 1

void ppo_advantages(Ppo *p) {
    const int N = p->cfg.envs, T = p->cfg.steps;
    const double gamma = p->cfg.gamma, lambda = p->cfg.lambda;
    for (int e = 0; e < N; e++) {
        const size_t s0 = (size_t)e * T;
        double last = 0.0;
        for (int t = T - 1; t >= 0; t--) {
            const size_t s = s0 + t;
            const double nonterminal = p->done[s] ? 0.0 : 1.0;
            const double next = t == T - 1 ? p->next_value[e] : p->value[s + 1];
            const double delta = p->reward[s] + gamma * next * nonterminal - p->value[s];
            last = delta + gamma * lambda * nonterminal * last;
            p->adv[s] = last;
            p->ret[s] = last + p->value[s];
        }
    }
}

// ----------------------------------------------------------------------------
// the minibatch's gradient: chunks of samples in float64, each chunk's sum added exactly

typedef struct {
    Ppo *p;
    const int32_t *mb;
    int M, end;               // chunks [next, end) are this rank's
    atomic_int next;
} GradJob;

// The loss of one sample and its gradient wrt the logits and the value (not divided by M).
// stats += policy loss, value loss, entropy, approx kl, clipped (0/1).
static void sample_loss(const PpoConfig *c, const double *logits, double v, int a, double old_logp,
                        double old_v, double adv, double ret, double *dlogits, double *dv, double *stats) {
    double logp[ACNET_A_MAX];
    const int A = PPO_ACTIONS;
    const double ent = acnet_log_softmax(logits, A, logp);
    const double logratio = logp[a] - old_logp, ratio = exp(logratio);
    const double clipped = ratio < 1.0 - c->clip ? 1.0 - c->clip : ratio > 1.0 + c->clip ? 1.0 + c->clip : ratio;
    const double pg1 = -adv * ratio, pg2 = -adv * clipped;
    // d(max(pg1, pg2))/dlogp: through pg1 (ratio' = ratio) unless the clipped term is larger
    const double dlogp = pg1 >= pg2 ? -adv * ratio : 0.0;
    for (int k = 0; k < A; k++) {
        const double pk = exp(logp[k]);
        dlogits[k] = dlogp * ((k == a ? 1.0 : 0.0) - pk) + c->ent_coef * pk * (logp[k] + ent);
    }
    // value: 0.5 max((v - R)^2, (v_old + clip(v - v_old, -c, c) - R)^2)
    const double dvv = v - old_v;
    const double vc = old_v + (dvv < -c->clip ? -c->clip : dvv > c->clip ? c->clip : dvv);
    const double l1 = (v - ret) * (v - ret), l2 = (vc - ret) * (vc - ret);
    const bool inside = dvv >= -c->clip && dvv <= c->clip;
    *dv = c->vf_coef * (l1 >= l2 ? v - ret : inside ? vc - ret : 0.0);
    stats[0] += pg1 >= pg2 ? pg1 : pg2;
    stats[1] += 0.5 * (l1 >= l2 ? l1 : l2);
    stats[2] += ent;
    stats[3] += (ratio - 1.0) - logratio;
    stats[4] += fabs(ratio - 1.0) > c->clip ? 1.0 : 0.0;
}

// The update's loops walk W1's rows at scattered places (15 MB arrays at H = 128): each loop
// asks for the rows MEM_AHEAD_ROWS turns before their own (util/mem.h; a hint, no value changes).
static void prefetch_sum_row(GradSum *acc, const double *g, size_t off, size_t H) {
    mem_prefetch(g + off, sizeof(double) * H);
    mem_prefetch_w(acc->hi + off, sizeof(int64_t) * H);
    mem_prefetch_w(acc->lo + off, sizeof(int64_t) * H);
}

static void grad_chunk(Ppo *p, PpoThread *th, const int32_t *mb, int lo, int hi, double *stats) {
    const AcNet *net = &p->net;
    const size_t H = (size_t)net->H;
    const size_t tail_n = net->n - net->tail;
    double logits[ACNET_A_MAX], dlogits[ACNET_A_MAX], dv;
    rowset_clear(&th->crows);
    memset(th->g + net->tail, 0, sizeof(double) * tail_n);
    for (int i = lo; i < hi; i++) {
        const int s = mb[i];
        SparseX x = ppo_sample_x(p, s);
        for (int k = 0; k < x.nnz; k++) th->fresh[k] = rowset_add(&th->crows, x.idx[k]);
        const double v = acnet_forward(net, x, th->h, logits);
        sample_loss(&p->cfg, logits, v, p->action[s], p->logp[s], p->value[s], p->mb_adv[i], p->ret[s],
                    dlogits, &dv, stats);
        acnet_backward(net, x, th->h, dlogits, dv, th->g, th->dh, th->fresh);
    }
    int bad = 0;
    for (int r = 0; r < th->crows.n; r++) {
        if (r + MEM_AHEAD_ROWS < th->crows.n) prefetch_sum_row(&th->acc, th->g, (size_t)th->crows.list[r + MEM_AHEAD_ROWS] * H, H);
        const size_t off = (size_t)th->crows.list[r] * H;
        bad |= rowset_add(&th->used, th->crows.list[r]) ? gradsum_set(&th->acc, th->g, off, H)
                                                         : gradsum_add(&th->acc, th->g, off, H);
    }
    bad |= th->tail_used ? gradsum_add(&th->acc, th->g, net->tail, tail_n) : gradsum_set(&th->acc, th->g, net->tail, tail_n);
    th->tail_used = true;
    th->bad |= bad;
}

static void grad_part(void *ctx, int part, int parts) {
    (void)parts;
    GradJob *job = ctx;
    Ppo *p = job->p;
    PpoThread *th = &p->th[part];
    const int C = p->cfg.chunk;
    int c;
    while ((c = atomic_fetch_add(&job->next, 1)) < job->end) {
        double *st = p->chunk_stats + (size_t)c * N_STATS;
        memset(st, 0, sizeof(double) * N_STATS);
        grad_chunk(p, th, job->mb, c * C, c * C + C < job->M ? c * C + C : job->M, st);
    }
}

// The threads' sums into the first thread's, exactly, and into p->g, converted and times 1/M,
// row by row (rows ascending in p->rows), then the tail (zeros on a rank that had no chunk).
typedef struct {
    Ppo *p;
    double scale;
    atomic_int bad;
} MergeJob;

// W1 row `row` (-1: the tail, at [off, off + len)) of the threads that have it into th[0]'s
// sum, exactly; 0, or 1 if a sum passed 2^31.
static bool thread_has(const PpoThread *t, int row) { return row < 0 ? t->tail_used : rowset_has(&t->used, row); }

static int merge_range(Ppo *p, int row, size_t off, size_t len) {
    GradSum *dst = &p->th[0].acc;
    bool filled = thread_has(&p->th[0], row);
    int bad = 0;
    for (int i = 1; i < p->threads; i++) {
        if (!thread_has(&p->th[i], row)) continue;
        if (filled) bad |= gradsum_merge_range(dst, &p->th[i].acc, off, len);
        else gradsum_copy_range(dst, &p->th[i].acc, off, len);
        filled = true;
    }
    if (!filled) gradsum_zero_range(dst, off, len);
    return bad;
}

static void merge_part(void *ctx, int part, int parts) {
    MergeJob *job = ctx;
    Ppo *p = job->p;
    const size_t H = (size_t)p->net.H;
    const int n = p->rows.n;
    const GradSum *sum = &p->th[0].acc;
    int bad = 0;
    const int r1 = (int)((int64_t)n * (part + 1) / parts);
    for (int r = (int)((int64_t)n * part / parts); r < r1; r++) {
        if (r + MEM_AHEAD_ROWS < r1) {    // every thread's (asking only those that have the row measured slower)
            const size_t ahead = (size_t)p->rows.list[r + MEM_AHEAD_ROWS] * H;
            for (int i = 0; i < p->threads; i++) prefetch_sum_row(&p->th[i].acc, p->g, ahead, H);
        }
        const int row = p->rows.list[r];
        const size_t off = (size_t)row * H;
        bad |= merge_range(p, row, off, H);
        gradsum_to_double_range(sum, p->g + off, off, H);
        for (size_t j = 0; j < H; j++) p->g[off + j] *= job->scale;
    }
    if (part == parts - 1) {
        const size_t off = p->net.tail, len = p->net.n - p->net.tail;
        bad |= merge_range(p, -1, off, len);
        gradsum_to_double_range(sum, p->g + off, off, len);
        for (size_t j = 0; j < len; j++) p->g[off + j] *= job->scale;
    }
    if (bad) atomic_store(&job->bad, 1);
}

// The ranks' total (Comm.reduce's packed g: rows in the plan's order in p->rows, then the
// tail) into p->g, times 1/M, and p->rows ascending again (the norm sums the rows in that
// order, as one process does).
static void unpack_total(Ppo *p, const double *g, double scale) {
    const size_t H = (size_t)p->net.H, tail = p->net.tail, len = p->net.n - p->net.tail;
    const int n = p->rows.n;
    for (int k = 0; k < n; k++) {
        const int row = p->rows.list[k];
        p->pos[row] = k;
        p->row_mark[row] = 1;
        for (size_t j = 0; j < H; j++) p->g[(size_t)row * H + j] = g[(size_t)k * H + j] * scale;
    }
    for (size_t j = 0; j < len; j++) p->g[tail + j] = g[(size_t)n * H + j] * scale;
    rowset_clear(&p->rows);
    for (int row = 0; row < p->net.D; row++)
        if (p->row_mark[row]) { p->row_mark[row] = 0; rowset_add(&p->rows, row); }
}

int ppo_minibatch_grad(Ppo *p, const int32_t *mb, int M, double *sums) {
    // normalised advantages, in minibatch order (std with Bessel's correction, as torch)
    double mean = 0.0, var = 0.0;
    for (int i = 0; i < M; i++) mean += p->adv[mb[i]];
    mean /= M;
    for (int i = 0; i < M; i++) { double d = p->adv[mb[i]] - mean; var += d * d; }
    const double sd = M > 1 ? sqrt(var / (M - 1)) : 0.0;
    for (int i = 0; i < M; i++) p->mb_adv[i] = (p->adv[mb[i]] - mean) / (sd + PPO_ADV_EPS);

    for (int i = 0; i < p->threads; i++) {
        rowset_clear(&p->th[i].used);
        p->th[i].tail_used = false;
        p->th[i].bad = 0;
    }
    // this rank's share of the chunks (all of them in one process); the others' loss terms are zeros
    const int chunks = (M + p->cfg.chunk - 1) / p->cfg.chunk;
    const int rank = p->comm ? p->comm->rank : 0, ranks = p->comm ? p->comm->size : 1;
    const int c0 = (int)((int64_t)chunks * rank / ranks), c1 = (int)((int64_t)chunks * (rank + 1) / ranks);
    memset(p->chunk_stats, 0, sizeof(double) * (size_t)chunks * N_STATS);
    GradJob job = { p, mb, M, c1, c0 };
    pool_for(p->pool, grad_part, &job);
    int bad = 0;
    for (int i = 0; i < p->threads; i++) bad |= p->th[i].bad;
    if (bad) goto diverged;

    // the rows any thread touched, ascending: an order that no thread count changes
    rowset_clear(&p->rows);
    for (int i = 0; i < p->threads; i++)
        for (int r = 0; r < p->th[i].used.n; r++) p->row_mark[p->th[i].used.list[r]] = 1;
    for (int row = 0; row < p->net.D; row++)
        if (p->row_mark[row]) { p->row_mark[row] = 0; rowset_add(&p->rows, row); }
    MergeJob mj = { p, 1.0 / M, 0 };
    pool_for(p->pool, merge_part, &mj);
    if (atomic_load(&mj.bad)) goto diverged;
    // the ranks' sums and loss terms (each chunk's are non-zero on the one rank that computed
    // it: summed as integers, every rank has their bits); one process: nothing to do
    if (p->comm) {
        const int nx = chunks * N_STATS;
        memcpy(p->x, p->chunk_stats, sizeof(int64_t) * (size_t)nx);
        const double *g;
        if (p->comm->reduce(p->comm, p->pool, &p->th[0].acc, &p->rows, (size_t)p->net.H, p->x, nx, p->digest, &g,
                            p->why, sizeof(p->why)))
            return -1;
        memcpy(p->chunk_stats, p->x, sizeof(int64_t) * (size_t)nx);
        if (g) unpack_total(p, g, 1.0 / M);
    }

    for (int k = 0; k < N_STATS; k++) sums[k] = 0.0;
    for (int c = 0; c < chunks; c++)
        for (int k = 0; k < N_STATS; k++) sums[k] += p->chunk_stats[(size_t)c * N_STATS + k];
    for (int k = 0; k < N_STATS; k++) sums[k] /= M;
    return 0;
diverged:
    snprintf(p->why, sizeof(p->why), "iteration %lld: a gradient sum passed 2^31 or is not finite "
             "(training diverged; try a smaller --lr)", (long long)p->iteration);
    return -1;
}

// ----------------------------------------------------------------------------
// clip the global norm, Adam

typedef struct {
    Ppo *p;
    AdamStep adam;
    double coef;
    double *rowsq;          // (rows) sum of squares of each row, for the norm
} StepJob;

static void norm_part(void *ctx, int part, int parts) {
    StepJob *job = ctx;
    Ppo *p = job->p;
    const size_t H = (size_t)p->net.H;
    const int n = p->rows.n;
    const int r1 = (int)((int64_t)n * (part + 1) / parts);
    for (int r = (int)((int64_t)n * part / parts); r < r1; r++) {
        if (r + MEM_AHEAD_ROWS < r1) mem_prefetch(p->g + (size_t)p->rows.list[r + MEM_AHEAD_ROWS] * H, sizeof(double) * H);
        const double *g = p->g + (size_t)p->rows.list[r] * H;
        double s = 0.0;
        for (size_t j = 0; j < H; j++) s += g[j] * g[j];
        job->rowsq[r] = s;
    }
}

static void adam_part(void *ctx, int part, int parts) {
    StepJob *job = ctx;
    Ppo *p = job->p;
    const size_t H = (size_t)p->net.H;
    const int n = p->rows.n;
    const bool digest = p->comm && p->comm->size > 1;     // only ranks compare it
    uint64_t d = 0;
    const int r1 = (int)((int64_t)n * (part + 1) / parts);
    for (int r = (int)((int64_t)n * part / parts); r < r1; r++) {
        if (r + MEM_AHEAD_ROWS < r1) {
            const size_t ahead = (size_t)p->rows.list[r + MEM_AHEAD_ROWS] * H;
            mem_prefetch(p->g + ahead, sizeof(double) * H);
            mem_prefetch_w(p->net.w + ahead, sizeof(double) * H);
            mem_prefetch_w(p->adam_m + ahead, sizeof(double) * H);
            mem_prefetch_w(p->adam_v + ahead, sizeof(double) * H);
        }
        const size_t off = (size_t)p->rows.list[r] * H;
        if (job->coef < 1.0) for (size_t j = 0; j < H; j++) p->g[off + j] *= job->coef;
        adam_update(p->net.w + off, p->adam_m + off, p->adam_v + off, p->g + off, H, &job->adam);
        if (digest) d += digest_range(p->net.w, off, H);
    }
    if (part == parts - 1) {
        const size_t off = p->net.tail, len = p->net.n - p->net.tail;
        if (job->coef < 1.0) for (size_t j = 0; j < len; j++) p->g[off + j] *= job->coef;
        adam_update(p->net.w + off, p->adam_m + off, p->adam_v + off, p->g + off, len, &job->adam);
        if (digest) d += digest_range(p->net.w, off, len);
    }
    p->digests[part] = d;
}

double ppo_step(Ppo *p, double lr) {
    p->adam_t++;
    StepJob job = { p, adam_step(lr, PPO_ADAM_BETA1, PPO_ADAM_BETA2, PPO_ADAM_EPS, p->adam_t), 1.0, p->rowsq };
    // the norm: rows in ascending order, then the tail (torch sums per parameter, then the
    // norms' squares; the difference is rounding)
    pool_for(p->pool, norm_part, &job);
    double sq = 0.0;
    for (int r = 0; r < p->rows.n; r++) sq += p->rowsq[r];
    const double *tg = p->g + p->net.tail;
    for (size_t j = 0; j < p->net.n - p->net.tail; j++) sq += tg[j] * tg[j];
    const double norm = sqrt(sq);
    const double coef = p->cfg.max_grad_norm / (norm + PPO_NORM_EPS);
    job.coef = coef < 1.0 ? coef : 1.0;
    pool_for(p->pool, adam_part, &job);
    for (int i = 0; i < p->threads; i++) p->digest += p->digests[i];
    return norm;
}

// ----------------------------------------------------------------------------
// one iteration

int ppo_iteration(Ppo *p, PpoStats *st, char *err, size_t errlen) {
    const PpoConfig *c = &p->cfg;
    const int B = c->envs * c->steps, M = B / c->minibatches;
    memset(st, 0, sizeof(*st));
    double frac = c->anneal_steps > 0 ? 1.0 - (double)p->agent_steps / (double)c->anneal_steps : 1.0;
    st->lr = c->lr * (frac > 0.0 ? frac : 0.0);
    double t0 = clock_now_s();
    if (ppo_collect(p)) { snprintf(err, errlen, "%s", p->why); return -1; }
    ppo_advantages(p);
    double t1 = clock_now_s();
    double sums[N_STATS], acc[N_STATS] = {0}, gn = 0.0;
    int steps = 0;
    for (int ep = 0; ep < c->epochs; ep++) {
        // Fisher-Yates from the epoch's own stream
        Rng rng;
        rng_seed(&rng, rng_key(c->seed, (uint64_t)p->iteration, (uint64_t)ep, KEY_PERM));
        for (int i = 0; i < B; i++) p->perm[i] = i;
        for (int i = B - 1; i > 0; i--) {
            int j = (int)rng_below(&rng, (uint64_t)i + 1);
            int32_t tmp = p->perm[i]; p->perm[i] = p->perm[j]; p->perm[j] = tmp;
        }
        for (int m = 0; m < c->minibatches; m++) {
            if (ppo_minibatch_grad(p, p->perm + (size_t)m * M, M, sums)) {
                snprintf(err, errlen, "%s", p->why);
                return -1;
            }
            gn += ppo_step(p, st->lr);
            for (int k = 0; k < N_STATS; k++) acc[k] += sums[k];
            steps++;
        }
    }
    st->policy_loss = acc[0] / steps;
    st->value_loss = acc[1] / steps;
    st->entropy = acc[2] / steps;
    st->approx_kl = acc[3] / steps;
    st->clip_frac = acc[4] / steps;
    st->grad_norm = gn / steps;
    // explained variance of the returns by the values, over the batch
    double mr = 0.0, md = 0.0;
    for (int s = 0; s < B; s++) { mr += p->ret[s]; md += p->ret[s] - p->value[s]; }
    mr /= B; md /= B;
    double vr = 0.0, vd = 0.0;
    for (int s = 0; s < B; s++) {
        double a = p->ret[s] - mr, d = p->ret[s] - p->value[s] - md;
        vr += a * a; vd += d * d;
    }
    st->explained_var = vr > 0.0 ? 1.0 - vd / vr : NAN;
    st->rollout_s = t1 - t0;
    st->update_s = clock_now_s() - t1;
    p->iteration++;
    p->last = *st;
    return 0;
}
