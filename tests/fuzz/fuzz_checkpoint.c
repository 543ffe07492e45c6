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
            // an accepted file is whole: touch its last weight and each array's last entry
            volatile double sink = s.policy.w[s.policy.n - 1];
            size_t want = ((size_t)data[12] | (size_t)data[13] << 8 | (size_t)data[14] << 16 | (size_t)data[15] << 24) +
                          8 * s.policy.n + 4;
            for (int i = 0; i < s.saved.count; i++) {
                if (s.saved.n[i]) sink += s.saved.data[i][s.saved.n[i] - 1];
                want += 8 * s.saved.n[i];
            }
            (void)sink;
            if (s.policy.n != (size_t)s.policy.D * s.policy.H + s.policy.H || size != want) abort();
            train_state_free(&s);
        } else if (!err[0]) {
            abort();                  // a refusal always says why
        }
    }
    return 0;
}
