/* The plain C peers of the exporace benchmarks: each kernel written the
 * way it usually is, one loop tracking the best score and its index, built
 * with -O3 -march=native. */

#include <math.h>
#include <stdint.h>

/* The one loop of every race peer: token i scores WEIGHT * inv_q[i] in type
 * T, and the first best score wins (a strict `>`). Each peer below is this
 * loop with its weight written in. */
#define PLAIN_ARGMAX(T, WEIGHT)                                                \
    int64_t arg = 0;                                                           \
    T best = -INFINITY;                                                        \
    for (int64_t i = 0; i < v; i++) {                                          \
        T s = (T)(WEIGHT) * inv_q[i];                                          \
        if (s > best) {                                                        \
            best = s;                                                          \
            arg = i;                                                           \
        }                                                                      \
    }                                                                          \
    return arg;

/* The residual max(p - d, 0) of token i, in f32. */
static inline float residual(const float *p, const float *d, int64_t i) {
    float r = p[i] - d[i];
    return r > 0.0f ? r : 0.0f;
}

/* vLLM's recovered token for one n-gram draft position: argmax over the
 * target probabilities with the draft token zeroed, times inv_q, in f32. */
int64_t plain_recover_row_f32(const float *p, const float *inv_q, int64_t v, int64_t draft) {
    PLAIN_ARGMAX(float, i == draft ? 0.0f : p[i])
}

/* The same with f64 noise: the f32 weight widened, the score in f64. */
int64_t plain_recover_row_f64(const float *p, const double *inv_q, int64_t v, int64_t draft) {
    PLAIN_ARGMAX(double, i == draft ? 0.0f : p[i])
}

/* vLLM's recovered token for one draft position with draft probabilities:
 * argmax over the residual max(p - d, 0), computed in f32, times inv_q. */
int64_t plain_residual_row_f32(const float *p, const float *d, const float *inv_q, int64_t v) {
    PLAIN_ARGMAX(float, residual(p, d, i))
}

/* The same with f64 noise: the f32 residual widened, the score in f64. */
int64_t plain_residual_row_f64(const float *p, const float *d, const double *inv_q, int64_t v) {
    PLAIN_ARGMAX(double, residual(p, d, i))
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
