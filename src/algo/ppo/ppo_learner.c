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
#include <string.h>

#include "../../train/comm.h"
#include "../../train/state.h"
#include "../../train/weights_npy.h"
#include "../learner_util.h"

Ppo *ppo_of(const TrainState *s) { return learner_box(s)->obj; }

// Weights, Adam's two moments, the minibatch gradient; a minibatch's hidden layers, their
// gradients and the first layer's slices (the threads' scratch is the size of the tail:
// nothing W1-sized).
static double ppo_learner_memory_bytes(const TrainConfig *c) {
    const double n = (double)ppo_input_size(c->coarse) * c->hidden;
    const double M = c->minibatches > 0 ? (double)c->envs * c->steps / c->minibatches : 0.0;
    return n * 8 * 4 + M * c->hidden * 8 * 3;
}

static void envs_save(const void *p, double *out) { ppo_envs_save(p, out); }
static int envs_load(void *p, const double *in) { return ppo_envs_load(p, in); }

// The weights are drawn from the seed whether fresh or not; a load overwrites them.
static int ppo_learner_create(TrainState *s, bool fresh) {
    char err[256]; // train_state_attach checked the settings: what fails here is memory
    Ppo *p = ppo_create(&s->cfg, err, sizeof(err));
    if (!p) return -1;
    const LearnerHeldPart envs = { "PPO envs", false, "the checkpoint's env states are not valid", ppo_envs_doubles(p),
        envs_save, envs_load, NULL };
    return learner_box_create(s, p, ppo_free, &envs, 1);
}

static int ppo_learner_arrays(TrainState *s, LearnerArray *out) {
    const AcNet *net = &ppo_of(s)->net;
    out[0] = (LearnerArray){ "PPO weights", net->w, net->n, false };
    out[1] = (LearnerArray){ "Adam m", ppo_of(s)->adam_m, net->n, false };
    out[2] = (LearnerArray){ "Adam v", ppo_of(s)->adam_v, net->n, true };
    return 3 + learner_box_arrays(s, out + 3);
}

static int ppo_learner_iterate(TrainState *s, Pool *pool, Comm *comm, LearnerBatch *lb, char *err, size_t errlen) {
    Ppo *p = ppo_of(s);
    ppo_sticky_set(p, s->agent_steps); // what saved envs were set to, before a load takes them
    if (learner_box_begin(s, ppo_bind(p, pool, comm), err, errlen)) return -1;
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
        p->ended_stats[i] = (EpisodeStats){ (int)p->ended[i].ret, (int)p->ended[i].len, 0, false };
    lb->episodes = p->ended_stats;
    lb->count = p->n_ended;
    lb->steps = (int64_t)p->cfg.envs * p->cfg.steps;
    lb->frames = p->frames;
    const double m[] = { ps.policy_loss, ps.value_loss, ps.entropy, ps.approx_kl, ps.clip_frac, ps.explained_var,
        ps.grad_norm, ps.lr };
    memcpy(lb->metrics, m, sizeof(m));
    return 0;
}

static const double *ppo_learner_weights(const TrainState *s, size_t *n) {
    *n = ppo_of(s)->net.n;
    return ppo_of(s)->net.w;
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

static const char *const ppo_learner_metrics[] = { "policy_loss", "value_loss", "entropy", "approx_kl", "clip_frac",
    "explained_var", "grad_norm", "lr", NULL };

// clang-format off
const Learner PPO_LEARNER = {
    .name = "ppo",
    .summary = "proximal policy optimisation: rollouts over many envs, GAE, clipped loss, Adam",
    .check = ppo_check,
    LEARNER_BOX_SLOTS(ppo_learner),
};
// clang-format on
