// PTX lg2.approx.ftz.f32 (what log2f compiles to under -use_fast_math) on
// every float m * 2^e, e in [-40, 8], against fl32(e + lg2(m)) where lg2(m)
// is the instruction's own value on [1, 2): per exponent, how many results
// differ from that prediction by each number of ulps (-3 to 3, and beyond),
// and the largest absolute error against log2 in double. Prints JSON.
// Build and run on an NVIDIA GPU: nvcc -O3 -o lg2_binades lg2_binades.cu && ./lg2_binades
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <cstring>

__device__ __forceinline__ float lg2_approx(float x) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ long long ordinal(float f) {
  int32_t b = __float_as_int(f);
  return b < 0 ? -(long long)(b & 0x7fffffff) : (long long)b;
}

constexpr int E_MIN = -40, E_MAX = 8, NE = E_MAX - E_MIN + 1, NB = 9;

__global__ void k(unsigned long long* hist, unsigned long long* maxerr_bits) {
  uint32_t m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= (1u << 23)) return;
  float t = lg2_approx(__uint_as_float(0x3f800000u | m));
  for (int e = E_MIN; e <= E_MAX; ++e) {
    float x = __uint_as_float(((uint32_t)(e + 127) << 23) | m);
    float r = lg2_approx(x);
    float p = __double2float_rn((double)e + (double)t);
    long long d = ordinal(r) - ordinal(p);
    int bin = d < -3 ? 0 : d > 3 ? NB - 1 : (int)d + 4;  // 0: < -3, 1..7: -3..3, 8: > 3
    atomicAdd(&hist[(e - E_MIN) * NB + bin], 1ull);
    double err = fabs((double)r - log2((double)x));
    atomicMax(&maxerr_bits[e - E_MIN], (unsigned long long)__double_as_longlong(err));
  }
}

int main() {
  unsigned long long *h, *mx;
  cudaMalloc(&h, NE * NB * 8);
  cudaMalloc(&mx, NE * 8);
  cudaMemset(h, 0, NE * NB * 8);
  cudaMemset(mx, 0, NE * 8);
  k<<<(1u << 23) / 256, 256>>>(h, mx);
  if (cudaDeviceSynchronize() != cudaSuccess) { fprintf(stderr, "kernel failed\n"); return 1; }
  unsigned long long hh[NE * NB], mm[NE];
  cudaMemcpy(hh, h, sizeof hh, cudaMemcpyDeviceToHost);
  cudaMemcpy(mm, mx, sizeof mm, cudaMemcpyDeviceToHost);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("{\"device\": \"%s\", \"bins\": [\"<-3\", -3, -2, -1, 0, 1, 2, 3, \">3\"],\n \"exponents\": [\n", prop.name);
  for (int i = 0; i < NE; ++i) {
    double err;
    memcpy(&err, &mm[i], 8);
    printf("  {\"e\": %d, \"ulps_from_e_plus_table\": [", E_MIN + i);
    for (int b = 0; b < NB; ++b) printf("%llu%s", hh[i * NB + b], b + 1 < NB ? ", " : "");
    printf("], \"max_abs_error\": %.17g}%s\n", err, i + 1 < NE ? "," : "");
  }
  printf(" ]}\n");
  return 0;
}
