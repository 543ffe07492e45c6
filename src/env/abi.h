// abi.h: the sizes, field offsets and constants that bindings mirror by hand (ctypes in
// python/pongrl/_lib.py), exported as a table so that a binding can check its mirror when it
// loads the library instead of reading garbage after a struct changes.
#ifndef PONGRL_ABI_H
#define PONGRL_ABI_H

#include <stdint.h>

#ifdef __cplusplus // a C++ program links the C names
extern "C" {
#endif

typedef struct {
    const char *name; // "sizeof EnvStep", "EnvStep.reward" (an offset), "ENV_ERR_DONE"
    int64_t value;
} AbiEntry;

// The table, ended by an entry whose name is NULL.
const AbiEntry *env_abi(void);

#ifdef __cplusplus
}
#endif

#endif
