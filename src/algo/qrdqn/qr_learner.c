// qr_learner.c: QR-DQN (qrdqn.h) as a learner of the training loop (train/learner.h): its
// state as float64 arrays (weights, target, Adam's moments, the replay memory, the envs) for the
// checkpoint, one iteration T rounds of play and the updates due; its network as .npy files
// with model.txt (export, import).
//
// The run's counters are the truth: an iteration's draws are keyed by s->iteration, the
// updates' places, Adam's step count and the target's copies by s->agent_steps. So a resumed
// run needs only the arrays to go on bit-identically.
#include "qrdqn.h"

#include <stdio.h>
#include <string.h>

#include "../../train/weights_npy.h"
#include "../learner_util.h"
#include "qr_streams.h"

Qr *qr_of(const TrainState *s) { return learner_box(s)->obj; }

// Weights, target, Adam's moments and the gradient; the memory and its float64 copy.
static double qr_learner_memory_bytes(const TrainConfig *c) {
    const QrShape sh = qr_shape(c);
    const double mem = (double)c->replay * (13.0 + 2.0 * QR_LIT_SLOT);
    return (double)sh.n * 8 * 5 + mem + (double)c->replay * (16.0 + 8.0 * QR_LIT_SLOT / 3.0);
}

static void envs_save(const void *q, double *out) { train_envs_save(&((const Qr *)q)->te, out); }
static int envs_load(void *q, const double *in) { return train_envs_load(&((Qr *)q)->te, in); }
static void mem_save(const void *q, double *out) { replay_save(&((const Qr *)q)->mem, out); }
static int mem_load(void *q, const double *in) { return replay_load(&((Qr *)q)->mem, in); }

// The weights are drawn from the seed whether fresh or not; a load overwrites them.
static int qr_learner_create(TrainState *s, bool fresh) {
    char err[256]; // train_state_attach checked the settings: what fails here is memory
    Qr *q = qr_create(&s->cfg, err, sizeof(err));
    if (!q) return -1;
    const LearnerHeldPart held[] = {
        { "QR-DQN replay", true, "the checkpoint's replay memory is not valid", replay_doubles(&q->mem), mem_save,
            mem_load, NULL },
        { "QR-DQN envs", false, "the checkpoint's env states are not valid", train_envs_doubles(&q->te), envs_save,
            envs_load, NULL },
    };
    return learner_box_create(s, q, qr_free, held, 2);
}

static int qr_learner_arrays(TrainState *s, LearnerArray *out) {
    Qr *q = qr_of(s);
    out[0] = (LearnerArray){ "QR-DQN weights", q->w, q->sh.n, false };
    out[1] = (LearnerArray){ "QR-DQN target", q->target, q->sh.n, false };
    out[2] = (LearnerArray){ "Adam m", q->adam_m, q->sh.n, false };
    out[3] = (LearnerArray){ "Adam v", q->adam_v, q->sh.n, true };
    return 4 + learner_box_arrays(s, out + 4);
}

static int qr_learner_iterate(TrainState *s, Pool *pool, Comm *comm, LearnerBatch *lb, char *err, size_t errlen) {
    Qr *q = qr_of(s);
    if (learner_box_begin(s, qr_bind(q, pool, comm), err, errlen)) return -1;
    q->iteration = s->iteration;
    q->agent_steps = s->agent_steps;
    if (qr_iteration(q, err, errlen)) return -1;
    lb->episodes = q->ended;
    lb->count = q->n_ended;
    lb->steps = (int64_t)q->cfg.envs * q->cfg.steps;
    lb->frames = 0;
    for (int e = 0; e < q->cfg.envs; e++) lb->frames += q->te.frames[e];
    const QrStats *t = &q->stats;
    const double u = (double)t->updates;
    const double m[] = { u > 0 ? t->loss / u : 0.0, u > 0 ? t->mean_q / (u * q->cfg.minibatch) : 0.0, q->eps,
        (double)(q->mem.total - q->mem.oldest), u };
    memcpy(lb->metrics, m, sizeof(m));
    return 0;
}

static const double *qr_learner_weights(const TrainState *s, size_t *n) {
    *n = qr_of(s)->sh.n;
    return qr_of(s)->w;
}

static AgentPolicy qr_learner_agent(TrainState *s, bool greedy) { return qr_agent_policy(qr_of(s), greedy); }

// ----------------------------------------------------------------------------
// .npy files: DIR/qrdqn_W1.npy (D, H), qrdqn_b1.npy (H,), qrdqn_W2.npy (A N, H), qrdqn_b2.npy
// (A N,) float64; output a N + i is action a's quantile i

static void qr_notes(const TrainConfig *c, ModelNotes *notes) {
    model_notes_network(notes, qr_shape(c).D, QR_ACTION_ID, QR_ACTIONS);
}

static int qr_npy_arrays(const Qr *q, NpyArray *a) {
    const size_t D = (size_t)q->sh.D, H = (size_t)q->sh.H, O = (size_t)q->sh.A * q->sh.N;
    double *b1 = q->w + q->sh.tail, *W2 = b1 + H, *b2 = W2 + O * H;
    a[0] = (NpyArray){ "qrdqn_W1.npy", 2, { D, H }, q->w };
    a[1] = (NpyArray){ "qrdqn_b1.npy", 1, { H, 0 }, b1 };
    a[2] = (NpyArray){ "qrdqn_W2.npy", 2, { O, H }, W2 };
    a[3] = (NpyArray){ "qrdqn_b2.npy", 1, { O, 0 }, b2 };
    return 4;
}

static int qr_learner_export_npy(TrainState *s, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen) {
    ModelNotes notes;
    NpyArray a[NPY_ARRAYS_MAX];
    qr_notes(&s->cfg, &notes);
    return model_export(dir, &s->cfg, a, qr_npy_arrays(qr_of(s), a), &notes, wrote, wlen, err, errlen);
}

static int qr_learner_import_npy(TrainState *s, const char *dir, const ModelNotes *notes, char *err, size_t errlen) {
    ModelNotes want;
    qr_notes(&s->cfg, &want);
    if (model_notes_match(dir, notes, &want, "QR-DQN", err, errlen)) return -1;
    if (train_state_attach(s, &QRDQN_LEARNER, err, errlen)) return -1; // its state as a fresh run's
    Qr *q = qr_of(s);
    NpyArray a[NPY_ARRAYS_MAX];
    if (npy_arrays_import(dir, a, qr_npy_arrays(q, a), err, errlen)) return -1;
    memcpy(q->target, q->w, sizeof(double) * q->sh.n); // the target of an imported network is the network
    return 0;
}

static const char *const qr_learner_metrics[] = { "loss", "mean_q", "epsilon", "replay", "updates", NULL };

const StreamDecl QR_STREAMS[] = {
    { STREAM_QR_ENV, "qrde", true },
    { STREAM_QR_ACT, "qrda", false },
    { STREAM_QR_BATCH, "qrdb", false },
    { STREAM_QR_INIT, "qrdw", false },
    { 0, NULL, false },
};

// clang-format off
const Learner QRDQN_LEARNER = {
    .name = "qrdqn",
    .summary = "QR-DQN: replay, n-step quantile regression targets, epsilon-greedy, Adam",
    .network = (const char *const[]){ "hidden", NULL },
    .npy_files = "DIR/qrdqn_*.npy, and its settings and each array's crc32 as DIR/model.txt",
    .check = qr_check,
    .streams = QR_STREAMS,
    LEARNER_BOX_SLOTS(qr_learner),
};
// clang-format on
