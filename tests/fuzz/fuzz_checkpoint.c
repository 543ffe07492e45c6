// fuzz_checkpoint.c: libFuzzer target for the checkpoint reader (`make fuzz`).
//
// Every input is parsed twice: as a file would be (checksum checked, so almost every
// mutation stops there), and with the checksum skipped, so that the checks behind it
// (shape, sizes, configuration, counters, the packed arrays' streams) and the allocation they
// guard see the mutations too. Either way the reader must refuse or accept without a crash,
// leak or overread, and an accepted file's learner must take its arrays or refuse them.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "algo/algo.h"
#include "train/checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    for (int check = 0; check < 2; check++) {
        TrainState s;
        if (checkpoint_parse(data, size, check == 1, &s, NULL, err, sizeof(err)) == 0) {
            // an accepted file is whole: touch each array's last entry
            volatile double sink = 0;
            for (int i = 0; i < s.saved.count; i++)
                if (s.saved.n[i]) sink += s.saved.data[i][s.saved.n[i] - 1];
            (void)sink;
            // and its learner takes the arrays back, or refuses them in one line (where its
            // settings ask for little memory: they are the fuzzer's too)
            const Learner *l = learner_find(ALGO_LEARNERS, s.cfg.algo);
            err[0] = 0;
            if (l && l->memory_bytes(&s.cfg) < 64e6 && train_state_attach(&s, l, err, sizeof(err)) && !err[0]) abort();
            train_state_free(&s);
        } else if (!err[0]) {
            abort(); // a refusal always says why
        }
    }
    return 0;
}
