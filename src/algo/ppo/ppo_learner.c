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
#include "ppo_streams.h"

Ppo *ppo_of(const TrainState *s) { return learner_box(s)->obj; }

// W1 and its two Adam moments (float32), the tail's (float64); the float64 copies of the weights
// and the moments that the checkpoint holds (below); the minibatch gradient; a minibatch's
// hidden-layer gradients and its hidden sums by rows, float32 each (the threads' scratch is the
// size of the tail: nothing W1-sized).
static double ppo_learner_memory_bytes(const TrainConfig *c) {
    const double n = (double)ppo_input_size(c->coarse) * c->hidden;
    const double M = c->minibatches > 0 ? (double)c->envs * c->steps / c->minibatches : 0.0;
    return n * (4 * 3 + 8 * 3 + 8) + M * c->hidden * (4 + 4);
}

// The weights and Adam's moments are the network's (float32 W1, float64 tail: acnet.h), and
// the run's arrays (checkpoint, transport, files) are float64 in the network's layout: so they
// are held parts (learner_util.h), as the envs are: widened (exact) when the run settles, and
// taken back by the next iteration after a load, W1's part rounded to float32 (exact for what
// a save wrote; an older checkpoint's float64 W1 and moments are rounded). A fresh run holds the
// float64 draws themselves, not their rounding: the fresh state that a checkpoint is stored
// against (learner.h) is then the one before W1 was float32, and older checkpoints still load.
static void weights_save(const void *p, double *out) { acnet_widen(&((const Ppo *)p)->net, out); }
static int weights_load(void *p, const double *in) { return acnet_narrow(&((Ppo *)p)->net, in); }
static void m_save(const void *p, double *out) { ppo_moment_widen(p, 0, out); }
static int m_load(void *p, const double *in) { return ppo_moment_narrow(p, 0, in); }
static void v_save(const void *p, double *out) { ppo_moment_widen(p, 1, out); }
static int v_load(void *p, const double *in) { return ppo_moment_narrow(p, 1, in); }
static void envs_save(const void *p, double *out) { ppo_envs_save(p, out); }
static int envs_load(void *p, const double *in) { return ppo_envs_load(p, in); }

#define PPO_HELD_WEIGHTS 0 // the held parts' order: the arrays' (weights, m, v, envs)

// The weights drawn from the seed whether fresh or not; a load overwrites them.
static int ppo_learner_create(TrainState *s, bool fresh) {
    char err[256]; // train_state_attach checked the settings: what fails here is memory
    Ppo *p = ppo_create(&s->cfg, err, sizeof(err));
    if (!p) return -1;
    const size_t n = p->net.n;
    const LearnerHeldPart parts[] = {
        { "PPO weights", false, "the checkpoint's PPO weights hold a W1 entry past float32's range", n, weights_save,
            weights_load, NULL },
        { "Adam m", false, "the checkpoint's Adam m holds a W1 entry past float32's range", n, m_save, m_load, NULL },
        { "Adam v", true, "the checkpoint's Adam v holds a W1 entry past float32's range", n, v_save, v_load, NULL },
        { "PPO envs", false, "the checkpoint's env states are not valid", ppo_envs_doubles(p), envs_save, envs_load,
            NULL },
    };
    if (learner_box_create(s, p, ppo_free, parts, 4)) return -1;
    acnet_draw(&p->net, stream_ppo_init(s->cfg.seed), learner_box(s)->held.part[PPO_HELD_WEIGHTS].data);
    return 0;
}

// The held weights as the network has them now, unless they hold a load not yet taken.
static double *ppo_held_weights(const TrainState *s) {
    LearnerHeld *h = &learner_box(s)->held;
    double *w = h->part[PPO_HELD_WEIGHTS].data;
    if (!h->loaded) weights_save(ppo_of(s), w);
    return w;
}

static int ppo_learner_arrays(TrainState *s, LearnerArray *out) { return learner_box_arrays(s, out); }

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
    return ppo_held_weights(s);
}

// ----------------------------------------------------------------------------
// its network as .npy files (export, import): the arrays and model.txt (train/weights_npy.h)

// What model.txt says beside the settings, for readers that know no pongrl.
static void ppo_notes(const TrainConfig *c, ModelNotes *notes) {
    model_notes_network(notes, ppo_input_size(c->coarse), PPO_ACTION_ID, PPO_ACTIONS);
}

// Its network's six arrays, each as the layout w (acnet.h) has it: DIR/ppo_W1.npy (D, H),
// ppo_b1.npy (H,), ppo_Wpi.npy (A, H), ppo_bpi.npy (A,), ppo_wv.npy (H,), ppo_bv.npy (1,) float64.
static int ppo_npy_arrays(const AcNet *net, double *w, NpyArray *a) {
    const size_t D = (size_t)net->D, H = (size_t)net->H, A = (size_t)net->A;
    AcParts p = acnet_parts(net, w);
    a[0] = (NpyArray){ "ppo_W1.npy", 2, { D, H }, w };
    a[1] = (NpyArray){ "ppo_b1.npy", 1, { H, 0 }, (double *)p.b1 };
    a[2] = (NpyArray){ "ppo_Wpi.npy", 2, { A, H }, (double *)p.Wpi };
    a[3] = (NpyArray){ "ppo_bpi.npy", 1, { A, 0 }, (double *)p.bpi };
    a[4] = (NpyArray){ "ppo_wv.npy", 1, { H, 0 }, (double *)p.wv };
    a[5] = (NpyArray){ "ppo_bv.npy", 1, { 1, 0 }, (double *)p.bv };
    return 6;
}

// Acting needs the network alone: a load not yet taken gives it its weights now (the next
// iteration takes them again, the same bits). A W1 entry past float32's range, which only a
// float64 file made by hand can hold, becomes an infinity here (an iteration refuses it).
static AgentPolicy ppo_learner_agent(TrainState *s, bool greedy) {
    Ppo *p = ppo_of(s);
    const LearnerHeld *h = &learner_box(s)->held;
    if (h->loaded && weights_load(p, h->part[PPO_HELD_WEIGHTS].data)) {
        const double *w = h->part[PPO_HELD_WEIGHTS].data;
        for (size_t k = 0; k < p->net.tail; k++) p->net.w1[k] = (float)w[k];
        memcpy(p->net.t, w + p->net.tail, sizeof(double) * (p->net.n - p->net.tail));
    }
    return ppo_agent_policy(p, greedy);
}

static int ppo_learner_export_npy(TrainState *s, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen) {
    ModelNotes notes;
    NpyArray a[NPY_ARRAYS_MAX];
    ppo_notes(&s->cfg, &notes);
    const int n = ppo_npy_arrays(&ppo_of(s)->net, ppo_held_weights(s), a);
    return model_export(dir, &s->cfg, a, n, &notes, wrote, wlen, err, errlen);
}

static int ppo_learner_import_npy(TrainState *s, const char *dir, const ModelNotes *notes, char *err, size_t errlen) {
    ModelNotes want;
    ppo_notes(&s->cfg, &want);
    if (model_notes_match(dir, notes, &want, "PPO", err, errlen)) return -1;
    if (train_state_attach(s, &PPO_LEARNER, err, errlen)) return -1; // its state as a fresh run's
    // into the held weights, which the next iteration takes (as a checkpoint's), and the network
    AcNet *net = &ppo_of(s)->net;
    double *w = learner_box(s)->held.part[PPO_HELD_WEIGHTS].data;
    NpyArray a[NPY_ARRAYS_MAX];
    if (npy_arrays_import(dir, a, ppo_npy_arrays(net, w, a), err, errlen)) return -1;
    if (acnet_narrow(net, w)) {
        snprintf(err, errlen, "%s/ppo_W1.npy: an entry past float32's range (PPO's W1 is float32)", dir);
        return -1;
    }
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

const StreamDecl PPO_STREAMS[] = {
    { STREAM_PPO_ENV, "ppoe", true },
    { STREAM_PPO_ACT, "ppoa", false },
    { STREAM_PPO_PERM, "ppop", false },
    { STREAM_PPO_INIT, "ppow", false },
    { 0, NULL, false },
};

// clang-format off
const Learner PPO_LEARNER = {
    .name = "ppo",
    .summary = "proximal policy optimisation: rollouts over many envs, GAE, clipped loss, Adam",
    .network = (const char *const[]){ "hidden", "coarse", "value_hidden", NULL },
    .npy_files = "DIR/ppo_*.npy, and its settings and each array's crc32 as DIR/model.txt",
    .check = ppo_check,
    .streams = PPO_STREAMS,
    LEARNER_BOX_SLOTS(ppo_learner),
};
// clang-format on
