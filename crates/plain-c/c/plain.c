/* The plain C peers of the exporace benchmarks: each kernel written the
 * way it usually is, one loop tracking the best score and its index, built
 * with -O3 -march=native. */

#include <math.h>
#include <stdint.h>

/* vLLM's recovered token for one n-gram draft position: argmax over the
 * target probabilities with the draft token zeroed, times inv_q, in f32. */
int64_t plain_recover_row_f32(const float *p, const float *inv_q, int64_t v, int64_t draft) {
    int64_t arg = 0;
    float best = -INFINITY;
    for (int64_t i = 0; i < v; i++) {
        float w = i == draft ? 0.0f : p[i];
        float s = w * inv_q[i];
        if (s > best) {
            best = s;
            arg = i;
        }
    }
    return arg;
}

/* The same with f64 noise: the f32 weight widened, the score in f64. */
int64_t plain_recover_row_f64(const float *p, const double *inv_q, int64_t v, int64_t draft) {
    int64_t arg = 0;
    double best = -INFINITY;
    for (int64_t i = 0; i < v; i++) {
        double w = i == draft ? 0.0 : (double)p[i];
        double s = w * inv_q[i];
        if (s > best) {
            best = s;
            arg = i;
        }
    }
    return arg;
}

/* vLLM's recovered token for one draft position with draft probabilities:
 * argmax over the residual max(p - d, 0), computed in f32, times inv_q. */
int64_t plain_residual_row_f32(const float *p, const float *d, const float *inv_q, int64_t v) {
    int64_t arg = 0;
    float best = -INFINITY;
    for (int64_t i = 0; i < v; i++) {
        float r = p[i] - d[i];
        float w = r > 0.0f ? r : 0.0f;
        float s = w * inv_q[i];
        if (s > best) {
            best = s;
            arg = i;
        }
    }
    return arg;
}

/* The same with f64 noise: the f32 residual widened, the score in f64. */
int64_t plain_residual_row_f64(const float *p, const float *d, const double *inv_q, int64_t v) {
    int64_t arg = 0;
    double best = -INFINITY;
    for (int64_t i = 0; i < v; i++) {
        float r = p[i] - d[i];
        double w = r > 0.0f ? (double)r : 0.0;
        double s = w * inv_q[i];
        if (s > best) {
            best = s;
            arg = i;
        }
    }
    return arg;
}

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Exp(1) noise as 1/q: a 24-bit uniform in (0, 1], q = -log(u), in f32. */
void plain_noise_f32(uint64_t seed, float *out, int64_t v) {
    uint64_t state = seed;
    for (int64_t i = 0; i < v; i++) {
        float u = (float)((splitmix64(&state) >> 40) + 1) * 0x1p-24f;
        out[i] = 1.0f / (0.0f - logf(u));
    }
}

/* The same with a 53-bit uniform, in f64. */
void plain_noise_f64(uint64_t seed, double *out, int64_t v) {
    uint64_t state = seed;
    for (int64_t i = 0; i < v; i++) {
        double u = (double)((splitmix64(&state) >> 11) + 1) * 0x1p-53;
        out[i] = 1.0 / (0.0 - log(u));
    }
}
