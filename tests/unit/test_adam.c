// test_adam.c: rl/adam.c's moments never hold a subnormal: a moment that a step takes below the
// smallest normal number of its storage is stored (and stepped with) as 0, with float64 and with
// float32 moments; moments above it are torch's formula to the bit, in float64 and, for float32
// weights, in float32 arithmetic.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "rl/adam.h"

static const AdamStep *step_at(int64_t t) {
    static AdamStep s;
    s = adam_step(1e-3, 0.9, 0.999, 1e-8, t);
    return &s;
}

Test(adam, subnormal_moments_stored_as_zero) {
    // a unit that is off: g = 0, so m and v decay by beta1 and beta2 from the smallest normals
    double w[2] = { 0.5, -0.25 }, m[2] = { DBL_MIN, -DBL_MIN }, v[2] = { DBL_MIN, DBL_MIN }, g[2] = { 0.0, 0.0 };
    adam_update(w, m, v, g, 2, 1.0, step_at(7));
    for (int k = 0; k < 2; k++) {
        cr_expect_eq(m[k], 0.0, "m[%d] = %g: a subnormal kept", k, m[k]);
        cr_expect_eq(v[k], 0.0, "v[%d] = %g: a subnormal kept", k, v[k]);
    }
    cr_expect_eq(w[0], 0.5);
    cr_expect_eq(w[1], -0.25);
}

Test(adam, subnormal_float32_moments_stored_as_zero) {
    float w[2] = { 0.5f, -0.25f }, m[2] = { FLT_MIN, -FLT_MIN }, v[2] = { FLT_MIN, FLT_MIN };
    const float g[2] = { 0.0f, 0.0f };
    adam_update_f32(w, m, v, g, 2, 1.0, step_at(7));
    for (int k = 0; k < 2; k++) {
        cr_expect_eq(m[k], 0.0f, "m[%d] = %g: a subnormal kept", k, (double)m[k]);
        cr_expect_eq(v[k], 0.0f, "v[%d] = %g: a subnormal kept", k, (double)v[k]);
    }
    cr_expect_eq(w[0], 0.5f);
    cr_expect_eq(w[1], -0.25f);
}

Test(adam, normal_moments_follow_the_formula) {
    // small but normal results, and an ordinary step: the formula of adam.h, operation for operation
    const AdamStep *s = step_at(3);
    double w[3] = { 0.5, -0.25, 0.125 }, m[3] = { 4 * DBL_MIN, -1e-300, 0.01 }, v[3] = { 4 * DBL_MIN, 1e-300, 1e-4 };
    const double g[3] = { 0.0, 0.0, 0.03 };
    double we[3], me[3], ve[3];
    for (int k = 0; k < 3; k++) {
        me[k] = 0.9 * m[k] + (1.0 - 0.9) * g[k];
        ve[k] = 0.999 * v[k] + (1.0 - 0.999) * (g[k] * g[k]);
        we[k] = w[k] - s->step * (me[k] / (sqrt(ve[k]) * s->inv_bc2 + s->eps));
        cr_assert(fabs(me[k]) >= DBL_MIN && ve[k] >= DBL_MIN, "entry %d: not a normal result", k);
    }
    adam_update(w, m, v, g, 3, 1.0, s);
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(m[k], me[k], "m[%d]", k);
        cr_expect_eq(v[k], ve[k], "v[%d]", k);
        cr_expect_eq(w[k], we[k], "w[%d]", k);
    }
}

Test(adam, float32_step_is_float32_arithmetic) {
    // torch's Adam on float32 parameters: every operation in float32, the constants rounded once
    const AdamStep *s = step_at(5);
    float w[3] = { 0.5f, -0.25f, 0.125f }, m[3] = { 0.01f, -0.002f, 0.0f }, v[3] = { 1e-4f, 3e-6f, 0.0f };
    const float g[3] = { 0.03f, 0.001f, -0.2f };
    const float b1 = 0.9f, b2 = 0.999f, c1 = (float)(1.0 - 0.9), c2 = (float)(1.0 - 0.999);
    const float step = (float)s->step, ib = (float)s->inv_bc2, eps = (float)s->eps, coef = 0.75f;
    float we[3], me[3], ve[3];
    for (int k = 0; k < 3; k++) {
        const float gk = g[k] * coef;
        me[k] = b1 * m[k] + c1 * gk;
        ve[k] = b2 * v[k] + c2 * (gk * gk);
        we[k] = w[k] - step * (me[k] / (sqrtf(ve[k]) * ib + eps));
    }
    adam_update_f32(w, m, v, g, 3, 0.75, s);
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(m[k], me[k], "m[%d]", k);
        cr_expect_eq(v[k], ve[k], "v[%d]", k);
        cr_expect_eq(w[k], we[k], "w[%d]", k);
    }
}
