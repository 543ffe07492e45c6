// ppo_learner.c: PPO (ppo.h) as a learner of the training loop (train/learner.h): the run's
// settings (TrainConfig, read where they are), its state as float64 arrays (weights, Adam's
// moments, the envs' games and previous frames) for the checkpoint, one iteration a rollout and
// its update.
//
// The run's counters are the truth: an iteration's action streams and shuffles are keyed by
// s->iteration, the lr by s->agent_steps, Adam's step count is iterations x epochs x
// minibatches. So a resumed run needs only the arrays to go on bit-identically.
#include "ppo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../train/comm.h"
#include "../../train/state.h"
#include "../../train/weights_npy.h"
#include "../../util/mem.h"
#include "../learner_util.h"

typedef struct {
    Ppo *ppo;
    LearnerHeld held;    // the envs' state (ppo_envs_doubles), as last settled or loaded
    EpisodeStats *ended; // (N*T) an iteration's finished episodes, in (step, env) order
} PpoState;

static PpoState *ppo_state(const TrainState *s) { return (PpoState *)s->algo; }
Ppo *ppo_of(const TrainState *s) { return ppo_state(s)->ppo; }

// Weights, Adam's two moments, the minibatch gradient; a minibatch's hidden layers, their
// gradients and the first layer's slices (the threads' scratch is the size of the tail:
// nothing W1-sized).
static double ppo_learner_memory_bytes(const TrainConfig *c) {
    const double n = (double)ppo_input_size(c->coarse) * c->hidden;
    const double M = c->minibatches > 0 ? (double)c->envs * c->steps / c->minibatches : 0.0;
    return n * 8 * 4 + M * c->hidden * 8 * 3;
}

static void ppo_learner_destroy(TrainState *s) {
    PpoState *st = ppo_state(s);
    if (!st) return;
    ppo_destroy(st->ppo);
    learner_held_free(&st->held);
    free(st->ended);
    free(st);
    s->algo = NULL;
}

static void envs_save(const void *p, double *out) { ppo_envs_save(p, out); }
static int envs_load(void *p, const double *in) { return ppo_envs_load(p, in); }

static int ppo_learner_create(TrainState *s, bool fresh) {
    (void)fresh; // the weights are drawn from the seed either way; a load overwrites them
    PpoState *st = calloc(1, sizeof(PpoState));
    if (!st) return -1;
    s->algo = st;
    char err[256];
    if (!(st->ppo = ppo_create(&s->cfg, err, sizeof(err)))) {
        ppo_learner_destroy(s);
        return -1;
    }
    st->held.part[st->held.n++] = (LearnerHeldPart){ "the checkpoint's env states are not valid", NULL,
        ppo_envs_doubles(st->ppo), envs_save, envs_load };
    st->ended = calloc((size_t)s->cfg.envs * s->cfg.steps, sizeof(EpisodeStats));
    if (!st->ended || learner_held_start(&st->held, st->ppo, s->iteration)) {
        ppo_learner_destroy(s);
        return -1;
    }
    return 0;
}

static int ppo_learner_arrays(TrainState *s, LearnerArray *out) {
    PpoState *st = ppo_state(s);
    const size_t n = st->ppo->net.n;
    out[0] = (LearnerArray){ "PPO weights", st->ppo->net.w, n, false };
    out[1] = (LearnerArray){ "Adam m", st->ppo->adam_m, n, false };
    out[2] = (LearnerArray){ "Adam v", st->ppo->adam_v, n, true };
    out[3] = (LearnerArray){ "PPO envs", st->held.part[0].data, st->held.part[0].len, false };
    return 4;
}

static void ppo_learner_settle(TrainState *s) { learner_held_settle(&ppo_state(s)->held, ppo_of(s), s->iteration); }

static bool ppo_learner_settled(const TrainState *s) { return learner_held_settled(&ppo_state(s)->held, s->iteration); }

static int ppo_learner_iterate(TrainState *s, Pool *pool, Comm *comm, LearnerBatch *lb, char *err, size_t errlen) {
    PpoState *st = ppo_state(s);
    Ppo *p = st->ppo;
    if (ppo_bind(p, pool, comm)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ppo_sticky_set(p, s->agent_steps); // what saved envs were set to, before a load takes them
    if (learner_held_take(&st->held, p, err, errlen)) return -1;
    p->iteration = s->iteration;
    p->agent_steps = s->agent_steps;
    const int64_t per = (int64_t)p->cfg.epochs * p->cfg.minibatches; // Adam's steps an iteration
    if (s->iteration > (INT64_MAX - per) / per) {
        snprintf(err, errlen, "iteration %lld: Adam's step count would pass 2^63 (%d epochs of %d minibatches)",
            (long long)s->iteration, p->cfg.epochs, p->cfg.minibatches);
        return -1;
    }
    p->adam_t = s->iteration * per;
    PpoStats ps;
    if (ppo_iteration(p, &ps, err, errlen)) return -1;
    for (int i = 0; i < p->n_ended; i++)
        st->ended[i] = (EpisodeStats){ (int)p->ended[i].ret, (int)p->ended[i].len, 0, false };
    lb->episodes = st->ended;
    lb->count = p->n_ended;
    lb->steps = (int64_t)p->cfg.envs * p->cfg.steps;
    lb->frames = p->frames;
    const double m[] = { ps.policy_loss, ps.value_loss, ps.entropy, ps.approx_kl, ps.clip_frac, ps.explained_var,
        ps.grad_norm, ps.lr };
    memcpy(lb->metrics, m, sizeof(m));
    return 0;
}

static const double *ppo_learner_weights(const TrainState *s, size_t *n) {
    *n = ppo_state(s)->ppo->net.n;
    return ppo_state(s)->ppo->net.w;
}

// ----------------------------------------------------------------------------
// its network as .npy files (export, import): the arrays and model.txt (train/weights_npy.h)

// What model.txt says beside the settings, for readers that know no pongrl.
static void ppo_notes(const TrainConfig *c, ModelNotes *notes) {
    model_notes_network(notes, ppo_input_size(c->coarse), PPO_ACTION_ID, PPO_ACTIONS);
}

// Its network's six arrays, each as stored (acnet.h): DIR/ppo_W1.npy (D, H), ppo_b1.npy (H,),
// ppo_Wpi.npy (A, H), ppo_bpi.npy (A,), ppo_wv.npy (H,), ppo_bv.npy (1,) float64.
static int ppo_npy_arrays(const AcNet *net, NpyArray *a) {
    const size_t D = (size_t)net->D, H = (size_t)net->H, A = (size_t)net->A;
    AcParts p = acnet_parts(net, net->w);
    a[0] = (NpyArray){ "ppo_W1.npy", 2, { D, H }, net->w };
    a[1] = (NpyArray){ "ppo_b1.npy", 1, { H, 0 }, (double *)p.b1 };
    a[2] = (NpyArray){ "ppo_Wpi.npy", 2, { A, H }, (double *)p.Wpi };
    a[3] = (NpyArray){ "ppo_bpi.npy", 1, { A, 0 }, (double *)p.bpi };
    a[4] = (NpyArray){ "ppo_wv.npy", 1, { H, 0 }, (double *)p.wv };
    a[5] = (NpyArray){ "ppo_bv.npy", 1, { 1, 0 }, (double *)p.bv };
    return 6;
}

static AgentPolicy ppo_learner_agent(TrainState *s, bool greedy) { return ppo_agent_policy(ppo_of(s), greedy); }

static int ppo_learner_export_npy(TrainState *s, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen) {
    ModelNotes notes;
    NpyArray a[NPY_ARRAYS_MAX];
    ppo_notes(&s->cfg, &notes);
    return model_export(dir, &s->cfg, a, ppo_npy_arrays(&ppo_of(s)->net, a), &notes, wrote, wlen, err, errlen);
}

static int ppo_learner_import_npy(TrainState *s, const char *dir, const ModelNotes *notes, char *err, size_t errlen) {
    ModelNotes want;
    ppo_notes(&s->cfg, &want);
    if (model_notes_match(dir, notes, &want, "PPO", err, errlen)) return -1;
    if (train_state_attach(s, &PPO_LEARNER, err, errlen)) return -1; // its state as a fresh run's
    AcNet *net = &ppo_of(s)->net;
    NpyArray a[NPY_ARRAYS_MAX];
    if (npy_arrays_import(dir, a, ppo_npy_arrays(net, a), err, errlen)) return -1;
    if (acnet_split_check(net)) {
        snprintf(err, errlen,
            "%s/model.txt: value_hidden gives the value %d units of its own, but ppo_Wpi.npy's last %d "
            "columns or ppo_wv.npy's first %d entries are not all zero (not a separate value network)",
            dir, net->Hv, net->Hv, net->H - net->Hv);
        return -1;
    }
    return 0;
}

static const char *const PPO_METRICS[] = { "policy_loss", "value_loss", "entropy", "approx_kl", "clip_frac",
    "explained_var", "grad_norm", "lr", NULL };

// clang-format off
const Learner PPO_LEARNER = {
    .name = "ppo",
    .summary = "proximal policy optimisation: rollouts over many envs, GAE, clipped loss, Adam",
    .metrics = PPO_METRICS,
    .check = ppo_check,
    LEARNER_SLOTS(ppo_learner),
};
// clang-format on
