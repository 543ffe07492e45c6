// qr_envs.c: QR-DQN's N games are env/vecenv's vector of envs, caller-stepped: the pool's
// threads step their ranges of envs themselves, a forward pass between two steps of an env.
// Each steps with autoreset (an episode that ends starts the next inside the step) and seeds
// its episode j from (run seed, env, j) with QR-DQN's own word ("qrde"), so that an env's games
// do not depend on who plays them. Beside the games QR-DQN keeps each env's previous frame and
// the frames it emulated this iteration. A checkpoint keeps each env as an rl/learner_envs.h
// record (episode counters, game with its random stream, previous frame).
#include "qrdqn.h"

#include <stddef.h>
#include <string.h>

#include "../../rl/learner_envs.h"
#include "qr_streams.h"

int qr_envs_start(Qr *q) {
    const TrainConfig *c = &q->cfg;
    q->venv = learner_envs_create(c->env_id, c->envs, c->mode, c->difficulty, STREAM_QR_ENV, c->seed);
    return q->venv ? 0 : -1;
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
    VecEnvCounters c;
    vecenv_env_counters(q->venv, e, &c);
    env_render_obs80(vecenv_env(q->venv, e), cur);
    int a = any;
    if (u >= q->eps) { // the network's action (not asked while epsilon is 1)
        uint16_t idx[SPARSE_INPUT_MAX], lit[POLICY_D], lit_prev[POLICY_D];
        int8_t sign[SPARSE_INPUT_MAX];
        // sparse_input's entries from the two frames' lit pixels: a scan of each, not of the pair
        // and of both frames again for their coarse views
        const int nc = sparse_lit(cur, lit), np = sparse_lit(v->prev, lit_prev);
        const int nnz = sparse_input_lit(lit, nc, lit_prev, np, true, idx, sign);
        qr_forward(&q->sh, q->w, (SparseX){ nnz, idx, sign }, h, qv);
        a = qr_greedy(&q->sh, qv, NULL);
    }
    VecEnvStep es;
    vecenv_step_env(q->venv, e, QR_ACTION_ID[a], &es); // a valid action, an env of this run
    v->frames += es.frames;
    memset(st, 0, sizeof(*st));
    st->action = (uint8_t)a;
    st->reward = (int8_t)es.reward;
    st->flags = c.ep_length == 0 ? QR_START : 0; // no step of this episode yet
    memcpy(v->prev, cur, POLICY_D);
    if (es.terminated || es.truncated) {
        // a truncated episode too: the target does not bootstrap past it (rare: 27,000 steps)
        st->flags |= QR_DONE;
        st->ended = true;
        st->ret = es.episode_return;
        st->len = es.episode_length;
        memset(v->prev, 0, POLICY_D); // the next episode's first frame has no previous one
    }
}

// ----------------------------------------------------------------------------
// the envs' state as float64s: an rl/learner_envs.h record an env

size_t qr_envs_doubles(const Qr *q) { return (size_t)q->cfg.envs * ENV_RECORD_DOUBLES; }

void qr_envs_save(const Qr *q, double *out) {
    env_records_save(q->venv, q->cfg.envs, (const uint8_t *)q->envs + offsetof(QrEnv, prev), sizeof(QrEnv), out);
}

int qr_envs_load(Qr *q, const double *in) {
    return env_records_load(q->venv, q->cfg.envs, in, (uint8_t *)q->envs + offsetof(QrEnv, prev), sizeof(QrEnv));
}
