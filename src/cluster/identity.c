// identity.c: the start of an MPI run (Comm.agree): every rank runs the same binary with the
// same run-defining settings (config.h, role RUN) as rank 0, or the launch is refused with the
// offending ranks and hosts named; the other ranks of a resumed run adopt rank 0's.
#ifdef HAVE_MPI // a build without MPI has only cluster.c's stubs

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
    if (!f) { // no procfs: the build time has to do
        static const char stamp[] = __DATE__ " " __TIME__;
        return (uint32_t)crc32(crc, (const Bytef *)stamp, sizeof(stamp) - 1);
    }
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) crc = crc32(crc, buf, (uInt)n);
    fclose(f);
    return (uint32_t)crc;
}

// "seed=2 (rank 0: seed=1)" for each setting that differs (a and ref: train_config_write's lines)
static void config_diff(const char *a, const char *ref, char *out, size_t n) {
    char x[CFG_MAX], y[CFG_MAX];
    snprintf(x, sizeof(x), "%s", a);
    snprintf(y, sizeof(y), "%s", ref);
    char *sx, *sy;
    char *tx = strtok_r(x, "\n", &sx), *ty = strtok_r(y, "\n", &sy);
    size_t used = 0;
    out[0] = 0;
    while (tx && ty) {
        if (strcmp(tx, ty) && used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%s (rank 0: %s)", used ? ", " : "", tx, ty);
        tx = strtok_r(NULL, "\n", &sx);
        ty = strtok_r(NULL, "\n", &sy);
    }
}

// Rank 0's run-defining settings go to every rank; those asked to adopt them (the other ranks
// of a resumed run, which need not see its run directory) take them: their state is then made
// from them, and the weights, learner state and standing follow from rank 0 at the first
// iteration. Then every rank's binary and settings are compared with rank 0's: 0 when all
// match; otherwise -1 on every rank, with the offenders listed in rank 0's err. Collective.
int identity_agree(MpiComm *m, TrainConfig *cfg, bool adopt, char *err, size_t errlen) {
    const int size = m->comm.size, rank = m->comm.rank;
    char root[CFG_MAX] = "";
    if (rank == 0 && train_config_write(cfg, SETTING_RUN, root, sizeof(root)) >= sizeof(root)) root[0] = 0;
    MPI_Bcast(root, (int)sizeof(root), MPI_BYTE, 0, MPI_COMM_WORLD);
    root[sizeof(root) - 1] = 0;
    const char *refused = NULL;
    char why[256];
    if (adopt && rank != 0) {
        TrainConfig c = *cfg; // how this rank runs: its threads, quiet, no files
        refused = train_config_read(&c, root, strlen(root), SETTING_RUN, why, sizeof(why));
        if (!refused) *cfg = c;
    }
    Identity me = { 0 };
    me.exe_crc = exe_crc32();
    snprintf(me.host, sizeof(me.host), "%s", m->host);
    train_config_write(cfg, SETTING_RUN, me.cfg, sizeof(me.cfg));
    Identity *all = calloc((size_t)size, sizeof(Identity));
    if (!all) mpi_die(rank, "out of memory"); // the others are already in the gather
    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
    size_t used = 0;
    int bad = 0;
    err[0] = 0;
    for (int r = 1; r < size; r++) {
        char diff[2 * CFG_MAX];
        bool exe = all[r].exe_crc != all[0].exe_crc, differ = strcmp(all[r].cfg, all[0].cfg) != 0;
        if (!exe && !differ) continue;
        bad++;
        if (differ) config_diff(all[r].cfg, all[0].cfg, diff, sizeof(diff));
        if (used < errlen)
            used += (size_t)snprintf(err + used, errlen - used, "%srank %d on %s %s%s%s", used ? "; " : "", r,
                all[r].host, exe ? "runs a different pongrl binary" : "", exe && differ ? " and " : "",
                differ ? "has a different configuration: " : "");
        if (differ && used < errlen) used += (size_t)snprintf(err + used, errlen - used, "%s", diff);
    }
    if (bad && used < errlen) {
        used += (size_t)snprintf(err + used, errlen - used,
            " (rank 0 is on %s; every rank must run the same build"
            " with the same",
            all[0].host);
        for (int i = 0; i < TRAIN_SETTING_COUNT && used < errlen; i++)
            if (TRAIN_SETTING_ROWS[i].role == SETTING_RUN)
                used += (size_t)snprintf(err + used, errlen - used, " --%s", TRAIN_SETTING_ROWS[i].flag);
        if (used < errlen) snprintf(err + used, errlen - used, ")");
    }
    free(all);
    if (refused) snprintf(err, errlen, "rank 0's run: %s", refused);
    return bad || refused ? -1 : 0;
}

#endif
