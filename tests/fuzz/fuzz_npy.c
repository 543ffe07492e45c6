// fuzz_npy.c: libFuzzer target for the .npy reader (`make fuzz`): Karpathy's W1.npy/W2.npy
// and an export's arrays come from the user.
//
// The input is the file: written to a memory file that npy_read opens by name, then read as
// float64 and as uint8. The reader must refuse with one line or accept a whole array (its
// shape's elements exactly fill the file) without a crash, leak or overread.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/npy.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fd < 0) {
        if ((fd = memfd_create("fuzz-npy", 0)) < 0) abort();
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) abort();
    static const char *const descr[] = { "<f8", "|u1" };
    static const size_t esz[] = { 8, 1 };
    for (int k = 0; k < 2; k++) {
        int nd = -1;
        size_t shape[4];
        void *out = NULL;
        char err[256] = "";
        if (npy_read(path, descr[k], &nd, shape, &out, err, sizeof(err)) == 0) {
            if (nd < 0 || nd > 4) abort();
            size_t count = 1;
            for (int i = 0; i < nd; i++) count *= shape[i];
            if (count * esz[k] > size) abort();                                       // more than the file holds
            volatile uint8_t sink = count ? ((uint8_t *)out)[count * esz[k] - 1] : 0; // all of it is there
            (void)sink;
            free(out);
        } else if (!err[0] || strchr(err, '\n') || out) {
            abort(); // a refusal says why, in one line, and hands back nothing
        }
    }
    return 0;
}
