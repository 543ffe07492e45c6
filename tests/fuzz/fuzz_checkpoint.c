// fuzz_checkpoint.c: libFuzzer target for the checkpoint reader (`make fuzz`).
//
// Every input is parsed twice: as a file would be (checksum checked, so almost every
// mutation stops there), and with the checksum skipped, so that the checks behind it
// (shape, sizes, configuration, counters) and the allocation they guard see the mutations
// too. Either way the reader must refuse or accept without a crash, leak or overread.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "train/checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    for (int check = 0; check < 2; check++) {
        TrainState s;
        if (checkpoint_parse(data, size, check == 1, &s, NULL, err, sizeof(err)) == 0) {
            // an accepted file is whole: touch its last weight and cache entry
            volatile double sink = s.policy.w[s.policy.n - 1] + s.saved.data[0][s.policy.n - 1];
            (void)sink;
            if (s.policy.n != (size_t)s.policy.D * s.policy.H + s.policy.H || size != checkpoint_size(s.policy.n)) abort();
            train_state_free(&s);
        } else if (!err[0]) {
            abort();                  // a refusal always says why
        }
    }
    return 0;
}
