// wire_size.h: how wide the all-reduce's high parts are (allreduce.h), iteration by iteration.
//
// They start as narrow as allowed (1 byte; 2 or 8 under the test build's PONGRL_WIRE_HIGH,
// test_hooks.h). A value that does not fit makes the all-reduce run again one size wider
// (1 -> 2 -> 8 bytes). The wider size stays for `keep` iterations; then the next narrower one
// is tried (a probe). A probe that fails doubles `keep` (up to WIRE_KEEP_MAX), so sums that
// need the wider size for good cost a retry ever more rarely; a probe that works resets it to WIRE_KEEP. Every rank sees the same
// outcomes, so every rank holds the same state. No MPI here: the unit tests drive it.
#ifndef PONGRL_WIRE_SIZE_H
#define PONGRL_WIRE_SIZE_H

#include <stdbool.h>

#define WIRE_KEEP     64
#define WIRE_KEEP_MAX 4096

typedef struct {
    int hs, min;    // bytes a high part takes now; the narrowest allowed (1, 2 or 8)
    int kept, keep; // iterations done at hs since it last changed; how many before a probe
    bool probing;   // hs was just narrowed: this iteration tries it
    bool retried;   // this iteration needed a wider size
} WireSize;

static inline void wire_size_init(WireSize *w, int min) { *w = (WireSize){ min, min, 0, WIRE_KEEP, false, false }; }

// The all-reduce at w->hs did not fit: widen (the caller runs it again at the new w->hs).
// Returns false if it cannot widen (8 bytes hold any sum: a bug).
static inline bool wire_size_failed(WireSize *w) {
    if (w->hs == 8) return false;
    if (w->probing && w->keep < WIRE_KEEP_MAX) w->keep *= 2;
    w->hs = w->hs == 1 ? 2 : 8;
    w->kept = 0;
    w->probing = false;
    w->retried = true;
    return true;
}

// The iteration's all-reduce is done: pick the size for the next one.
static inline void wire_size_done(WireSize *w) {
    if (w->probing && !w->retried) w->keep = WIRE_KEEP;
    w->probing = w->retried = false;
    if (w->hs > w->min && ++w->kept >= w->keep) {
        w->hs = w->hs == 8 ? 2 : 1;
        if (w->hs < w->min) w->hs = w->min;
        w->kept = 0;
        w->probing = true;
    }
}

#endif
