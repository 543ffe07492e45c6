// identity.c: start-up checks of an MPI run: every rank runs the same binary with the same
// reproducibility-relevant configuration as rank 0, or the launch is refused with the
// offending ranks and hosts named; the other ranks of a resumed run adopt rank 0's.
#ifdef HAVE_MPI                 // a build without MPI has only cluster.c's stubs

#include "mpi_comm.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>


typedef struct {
    uint32_t exe_crc;
    char host[HOST_MAX];
    char cfg[CFG_MAX];
} Identity;

static uint32_t exe_crc32(void) {
    FILE *f = fopen("/proc/self/exe", "rb");
    uLong crc = crc32(0L, Z_NULL, 0);
    if (!f) {                                   // no procfs: the build time has to do
        static const char stamp[] = __DATE__ " " __TIME__;
        return (uint32_t)crc32(crc, (const Bytef *)stamp, sizeof(stamp) - 1);
    }
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) crc = crc32(crc, buf, (uInt)n);
    fclose(f);
    return (uint32_t)crc;
}

// "seed=2 (rank 0: seed=1)" for each setting that differs
static void config_diff(const char *a, const char *ref, char *out, size_t n) {
    char x[CFG_MAX], y[CFG_MAX];
    snprintf(x, sizeof(x), "%s", a);
    snprintf(y, sizeof(y), "%s", ref);
    char *sx, *sy;
    char *tx = strtok_r(x, " ", &sx), *ty = strtok_r(y, " ", &sy);
    size_t used = 0;
    out[0] = 0;
    while (tx && ty) {
        if (strcmp(tx, ty) && used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%s (rank 0: %s)", used ? ", " : "", tx, ty);
        tx = strtok_r(NULL, " ", &sx);
        ty = strtok_r(NULL, " ", &sy);
    }
}

// 0 when every rank matches rank 0; otherwise -1, with the offenders listed in err.
// Rank 0's run-defining configuration goes to every rank; those asked to adopt it (the other
// ranks of a resumed run, which need not see its run directory) take it and start afresh from
// it: the weights, cache and counters follow from rank 0 at the first iteration. Collective.
int identity_adopt(MpiComm *m, bool adopt, char *err, size_t errlen) {
    TrainConfig root = m->st->cfg;             // the same binary everywhere: the same layout
    MPI_Bcast(&root, (int)sizeof(root), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (!adopt || m->comm.rank == 0) return 0;
    TrainConfig c = m->st->cfg;                // how this rank runs: its threads, quiet, no files
    train_config_copy(&c, &root, SETTING_RUN, NULL);
    if (strcmp(c.algo, m->st->learner->name)) {
        snprintf(err, errlen, "rank 0's run is --algo %s: start every rank with --algo %s", c.algo, c.algo);
        return -1;
    }
    const Learner *learner = m->st->learner;
    train_state_free(m->st);
    if (train_state_init(m->st, &c, learner)) { snprintf(err, errlen, "out of memory (H=%d)", c.hidden); return -1; }
    return 0;
}

int identity_check(MpiComm *m, char *err, size_t errlen) {
    int size = m->comm.size;
    Identity me = {0};
    me.exe_crc = exe_crc32();
    snprintf(me.host, sizeof(me.host), "%s", m->host);
    train_config_string(&m->st->cfg, SETTING_RUN, me.cfg, sizeof(me.cfg));
    Identity *all = calloc((size_t)size, sizeof(Identity));
    if (!all) cluster_die(m, "out of memory");
    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
    size_t used = 0;
    int bad = 0;
    err[0] = 0;
    for (int r = 1; r < size; r++) {
        char diff[2 * CFG_MAX];
        bool exe = all[r].exe_crc != all[0].exe_crc, cfg = strcmp(all[r].cfg, all[0].cfg) != 0;
        if (!exe && !cfg) continue;
        bad++;
        if (cfg) config_diff(all[r].cfg, all[0].cfg, diff, sizeof(diff));
        if (used < errlen)
            used += (size_t)snprintf(err + used, errlen - used, "%srank %d on %s %s%s%s", used ? "; " : "",
                                     r, all[r].host,
                                     exe ? "runs a different pongrl binary" : "",
                                     exe && cfg ? " and " : "",
                                     cfg ? "has a different configuration: " : "");
        if (cfg && used < errlen) used += (size_t)snprintf(err + used, errlen - used, "%s", diff);
    }
    if (bad && used < errlen) {
        used += (size_t)snprintf(err + used, errlen - used, " (rank 0 is on %s; every rank must run the same build"
                                 " with the same", all[0].host);
        for (int i = 0; i < TRAIN_SETTING_COUNT && used < errlen; i++)
            if (TRAIN_SETTING_ROWS[i].role == SETTING_RUN)
                used += (size_t)snprintf(err + used, errlen - used, " --%s", TRAIN_SETTING_ROWS[i].flag);
        if (used < errlen) snprintf(err + used, errlen - used, ")");
    }
    free(all);
    return bad ? -1 : 0;
}

#endif
