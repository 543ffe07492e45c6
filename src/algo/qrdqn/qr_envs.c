// qr_envs.c: QR-DQN's N games. Each steps with autoreset and seeds its episode j from
// (run seed, env, j), so that an env's games do not depend on who plays them; its state
// (episode counters, game with its random stream, previous frame) as float64s is what a
// checkpoint keeps of it.
#include "qrdqn.h"

#include <math.h>
#include <string.h>

#include "../../util/streams.h"

int qr_envs_start(Qr *q) {
    for (int e = 0; e < q->cfg.envs; e++) {
        QrEnv *v = &q->envs[e];
        if (env_init_flavour(&v->env, q->cfg.env_id, q->cfg.mode, q->cfg.difficulty,
                stream_qr_env(q->cfg.seed, (uint64_t)e, 0)) != ENV_OK)
            return -1;
        v->episode = 1;
        v->start = true;
    }
    return 0;
}

// Env e's step of the round: its frame into q->frames, an epsilon-greedy action (two draws a
// step whatever epsilon is, so that the stream's place does not depend on it), the game's step,
// and what it left in q->step[e].
void qr_env_step(Qr *q, int e, double *h, double *qv) {
    QrEnv *v = &q->envs[e];
    uint8_t *cur = q->frames + (size_t)e * POLICY_D;
    QrStep *st = &q->step[e];
    const double u = rng_uniform(&q->rng[e]);
    const int any = (int)rng_below(&q->rng[e], QR_ACTIONS);
    env_render_obs80(&v->env, cur);
    int a = any;
    if (u >= q->eps) { // the network's action (not asked while epsilon is 1)
        uint16_t idx[SPARSE_INPUT_MAX];
        int8_t sign[SPARSE_INPUT_MAX];
        const int nnz = sparse_input(cur, v->prev, true, idx, sign);
        qr_forward(&q->sh, q->w, (SparseX){ nnz, idx, sign }, h, qv);
        a = qr_greedy(&q->sh, qv, NULL);
    }
    EnvStep es;
    env_step(&v->env, QR_ACTION_ID[a], &es);
    v->frames += es.frames;
    memset(st, 0, sizeof(*st));
    st->action = (uint8_t)a;
    st->reward = (int8_t)es.reward;
    st->flags = v->start ? QR_START : 0;
    v->start = false;
    v->ep_return += es.reward;
    v->ep_len++;
    memcpy(v->prev, cur, POLICY_D);
    if (es.terminated || es.truncated) {
        // a truncated episode too: the target does not bootstrap past it (rare: 27,000 steps)
        st->flags |= QR_DONE;
        st->ended = true;
        st->ret = v->ep_return;
        st->len = v->ep_len;
        env_reset(&v->env, stream_qr_env(q->cfg.seed, (uint64_t)e, (uint64_t)v->episode++));
        memset(v->prev, 0, POLICY_D);
        v->start = true;
        v->ep_return = 0;
        v->ep_len = 0;
    }
}

// ----------------------------------------------------------------------------
// as float64s: per env its episode counter, running return and length, start flag, then its
// game's state (env_clone, with its random stream) and previous frame, six bytes to a double

#define REC_BYTES   (ENV_STATE_BYTES + POLICY_D)
#define REC_WORDS   ((REC_BYTES + 5) / 6)
#define REC_DOUBLES (4 + REC_WORDS)

size_t qr_env_doubles(void) { return REC_DOUBLES; }
size_t qr_envs_doubles(const Qr *q) { return (size_t)q->cfg.envs * REC_DOUBLES; }

void qr_env_save(const Qr *q, int e, double *o) {
    uint8_t bytes[REC_WORDS * 6];
    const QrEnv *v = &q->envs[e];
    o[0] = (double)v->episode;
    o[1] = v->ep_return;
    o[2] = (double)v->ep_len;
    o[3] = v->start ? 1.0 : 0.0;
    memset(bytes, 0, sizeof(bytes));
    env_clone(&v->env, true, bytes);
    memcpy(bytes + ENV_STATE_BYTES, v->prev, POLICY_D);
    for (int k = 0; k < REC_WORDS; k++) {
        uint64_t w = 0;
        for (int b = 0; b < 6; b++) w |= (uint64_t)bytes[6 * k + b] << (8 * b);
        o[4 + k] = (double)w;
    }
}

void qr_envs_save(const Qr *q, double *out) {
    for (int e = 0; e < q->cfg.envs; e++) qr_env_save(q, e, out + (size_t)e * REC_DOUBLES);
}

int qr_env_load(Qr *q, int e, const double *o) {
    uint8_t bytes[REC_WORDS * 6];
    QrEnv *v = &q->envs[e];
    if (!(o[0] >= 1 && o[0] < 9e15) || !(fabs(o[1]) <= 1e6) || !(o[2] >= 0 && o[2] < 9e15) ||
        (o[3] != 0.0 && o[3] != 1.0))
        return -1;
    for (int k = 0; k < REC_WORDS; k++) {
        const double d = o[4 + k];
        if (!(d >= 0 && d < 281474976710656.0) || d != (double)(uint64_t)d) return -1;
        const uint64_t w = (uint64_t)d;
        for (int b = 0; b < 6; b++) bytes[6 * k + b] = (uint8_t)(w >> (8 * b));
    }
    for (int k = 0; k < POLICY_D; k++)
        if (bytes[ENV_STATE_BYTES + k] > 1) return -1;
    if (env_restore(&v->env, bytes) != ENV_OK) return -1;
    memcpy(v->prev, bytes + ENV_STATE_BYTES, POLICY_D);
    v->episode = (int64_t)o[0];
    v->ep_return = o[1];
    v->ep_len = (int64_t)o[2];
    v->start = o[3] != 0.0;
    return 0;
}

int qr_envs_load(Qr *q, const double *in) {
    for (int e = 0; e < q->cfg.envs; e++)
        if (qr_env_load(q, e, in + (size_t)e * REC_DOUBLES)) return -1;
    return 0;
}
