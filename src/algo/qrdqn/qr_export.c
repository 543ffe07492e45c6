// qr_export.c: QR-DQN's network outside training: acting (eval, record, watch: rl/agent.h),
// greedy (the action of the largest mean quantile) or epsilon-greedy with epsilon 0.001 (as
// Dopamine evaluates), and its network as .npy files with model.txt (export, import).
#include "qrdqn.h"

#include <stdio.h>
#include <string.h>

#include "../../train/weights_npy.h"

// The step's one uniform draw u serves both: u < eps explores, and then u / eps is uniform in
// [0, 1) and picks the action.
static int qr_act_probs(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *probs) {
    (void)x;
    const Qr *q = ap->net;
    static const uint8_t zeros[POLICY_D];
    uint16_t idx[SPARSE_INPUT_MAX];
    int8_t sign[SPARSE_INPUT_MAX];
    const int nnz = sparse_input(cur, prev ? prev : zeros, true, idx, sign);
    qr_forward(&q->sh, q->w, (SparseX){ nnz, idx, sign }, h, h + q->sh.H);
    const int best = qr_greedy(&q->sh, h + q->sh.H, NULL);
    // the probabilities are the sampling agent's, greedy or not (as PPO's are its softmax)
    for (int a = 0; a < QR_ACTIONS; a++) probs[a] = QR_EVAL_EPS / QR_ACTIONS + (a == best ? 1.0 - QR_EVAL_EPS : 0.0);
    int a = best;
    if (!ap->greedy && u < QR_EVAL_EPS) {
        a = (int)(u / QR_EVAL_EPS * QR_ACTIONS);
        if (a >= QR_ACTIONS) a = QR_ACTIONS - 1;
    }
    return QR_ACTION_ID[a];
}

static int qr_act(
    const AgentPolicy *ap, SparseX x, const uint8_t *cur, const uint8_t *prev, double u, double *h, double *p_up) {
    double probs[QR_ACTIONS];
    const int a = qr_act_probs(ap, x, cur, prev, u, h, probs);
    *p_up = probs[1]; // RIGHT: the paddle up
    return a;
}

AgentPolicy qr_agent(TrainState *s, bool greedy) {
    const Qr *q = qr_of(s);
    return (AgentPolicy){ qr_act, q, q->sh.H + q->sh.A * q->sh.N, greedy, qr_act_probs, QR_ACTION_ID, QR_ACTIONS };
}

// ----------------------------------------------------------------------------
// .npy files: DIR/qrdqn_W1.npy (D, H), qrdqn_b1.npy (H,), qrdqn_W2.npy (A N, H), qrdqn_b2.npy
// (A N,) float64; output a N + i is action a's quantile i

static const char *const QR_ACTION_NAME[QR_ACTIONS] = { "NOOP", "RIGHT", "LEFT" }; // ALE's names

static void qr_notes(const TrainConfig *c, ModelNotes *notes) {
    char size[16], names[64] = "", ids[32] = "";
    memset(notes, 0, sizeof(*notes));
    snprintf(size, sizeof(size), "%d", qr_shape(c).D);
    for (int a = 0; a < QR_ACTIONS; a++) {
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", a ? "," : "", QR_ACTION_NAME[a]);
        snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%d", a ? "," : "", QR_ACTION_ID[a]);
    }
    model_notes_add(notes, "input_size", size);
    model_notes_add(notes, "actions", names);
    model_notes_add(notes, "action_ids", ids);
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

int qr_export_npy(TrainState *s, const char *dir, char *wrote, size_t wlen, char *err, size_t errlen) {
    const Qr *q = qr_of(s);
    ModelNotes notes;
    NpyArray a[NPY_ARRAYS_MAX];
    qr_notes(&s->cfg, &notes);
    // model.txt last: a folder with it holds the arrays it describes
    if (npy_arrays_export(dir, a, qr_npy_arrays(q, a), err, errlen) ||
        model_txt_write(dir, &s->cfg, &notes, err, errlen))
        return -1;
    snprintf(wrote, wlen,
        "%s/qrdqn_W1.npy (%d, %d), qrdqn_b1, qrdqn_W2 (%d, %d), qrdqn_b2 (.npy, float64) and %s/model.txt", dir,
        q->sh.D, q->sh.H, q->sh.A * q->sh.N, q->sh.H, dir);
    return 0;
}

int qr_import_npy(TrainState *s, const char *dir, const ModelNotes *notes, char *err, size_t errlen) {
    ModelNotes want;
    qr_notes(&s->cfg, &want);
    for (int i = 0; i < notes->n; i++) {
        const char *v = model_notes_get(&want, notes->key[i]);
        if (!v) {
            snprintf(err, errlen, "%s/model.txt: unknown line '%s'", dir, notes->key[i]);
            return -1;
        }
        if (strcmp(v, notes->value[i])) {
            snprintf(err, errlen, "%s/model.txt: %s=%s, but this build's QR-DQN network with these settings has %s=%s",
                dir, notes->key[i], notes->value[i], notes->key[i], v);
            return -1;
        }
    }
    for (int i = 0; i < want.n; i++)
        if (!model_notes_get(notes, want.key[i])) {
            snprintf(err, errlen, "%s/model.txt: no %s line", dir, want.key[i]);
            return -1;
        }
    if (train_state_attach(s, &QRDQN_LEARNER, err, errlen)) return -1; // its state as a fresh run's
    Qr *q = qr_of(s);
    NpyArray a[NPY_ARRAYS_MAX];
    if (npy_arrays_import(dir, a, qr_npy_arrays(q, a), err, errlen)) return -1;
    memcpy(q->target, q->w, sizeof(double) * q->sh.n); // the target of an imported network is the network
    return 0;
}
