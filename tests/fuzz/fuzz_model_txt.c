// fuzz_model_txt.c: libFuzzer target for the model.txt reader (`make fuzz`): an exported
// model's settings and notes, which eval, record, watch, export and Python's pongrl.load read.
//
// The input is DIR/model.txt. The reader must refuse with one line or accept settings that
// the learner's own check then judges, without a crash, leak or overread; what it accepts it
// writes back, and that reads again to the same settings.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo/algo.h"
#include "train/config.h"
#include "train/weights_npy.h"

static char dir[64], file[96];

static void put(const uint8_t *data, size_t size) {
    FILE *f = fopen(file, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        snprintf(dir, sizeof(dir), "/tmp/pongrl-fuzz-model-XXXXXX");
        if (!mkdtemp(dir)) abort();
        snprintf(file, sizeof(file), "%s/%s", dir, MODEL_TXT);
    }
    put(data, size);
    TrainConfig cfg, again;
    ModelNotes notes, notes2;
    char err[1024] = "";
    if (model_txt_read(dir, &cfg, &notes, err, sizeof(err))) {
        if (!err[0] || strchr(err, '\n')) abort(); // a refusal says why, in one line
        return 0;
    }
    const Learner *l = algo_find(cfg.algo);
    if (l && l->check) (void)l->check(&cfg);
    // accepted: written back (the notes as read), it reads to the same settings
    unlink(file);
    if (model_txt_write(dir, &cfg, &notes, err, sizeof(err))) return 0; // a note too long to write back
    if (model_txt_read(dir, &again, &notes2, err, sizeof(err))) abort();
    char a[TRAIN_STR_MAX + 32], b[TRAIN_STR_MAX + 32];
    for (int i = 0; i < TRAIN_SETTING_COUNT; i++) {
        const TrainSetting *row = &TRAIN_SETTING_ROWS[i];
        if (strcmp(train_setting_text(row, &cfg, a, sizeof(a)), train_setting_text(row, &again, b, sizeof(b)))) abort();
    }
    return 0;
}
