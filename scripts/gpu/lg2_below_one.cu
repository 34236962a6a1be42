// PTX lg2.approx.ftz.f32 on [0.5, 1) against -1 + lg2(m), lg2(m) the
// instruction's own value on [1, 2): the least and largest difference, in
// double; and for every exponent e in [-40, 8] but -1, how many results
// differ from e + lg2(m) rounded toward zero. Prints JSON.
// nvcc -O3 -o lg2_below_one lg2_below_one.cu && ./lg2_below_one
#include <cstdio>
#include <cstdint>
#include <cstring>

__device__ __forceinline__ float lg2_approx(float x) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

constexpr int E_MIN = -40, E_MAX = 8, NE = E_MAX - E_MIN + 1;

__device__ unsigned long long ord(double d) {
  // monotone map of doubles to unsigned integers, for atomicMin/Max
  long long b = __double_as_longlong(d);
  return b < 0 ? ~(unsigned long long)b : (unsigned long long)b | (1ull << 63);
}

__global__ void k(unsigned long long* lo, unsigned long long* hi, unsigned long long* rz_miss) {
  uint32_t m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= (1u << 23)) return;
  float t = lg2_approx(__uint_as_float(0x3f800000u | m));
  float r1 = lg2_approx(__uint_as_float(0x3f000000u | m));
  double d = (double)r1 - (-1.0 + (double)t);
  atomicMin(lo, ord(d));
  atomicMax(hi, ord(d));
  for (int e = E_MIN; e <= E_MAX; ++e) {
    if (e == -1) continue;
    float r = lg2_approx(__uint_as_float(((uint32_t)(e + 127) << 23) | m));
    float p = __double2float_rz((double)e + (double)t);
    if (__float_as_uint(r) != __float_as_uint(p)) atomicAdd(&rz_miss[e - E_MIN], 1ull);
  }
}

double unord(unsigned long long u) {
  long long b = (u >> 63) ? (long long)(u & ~(1ull << 63)) : (long long)~u;
  double d;
  memcpy(&d, &b, 8);
  return d;
}

int main() {
  unsigned long long *lo, *hi, *rz;
  cudaMalloc(&lo, 8);
  cudaMalloc(&hi, 8);
  cudaMalloc(&rz, NE * 8);
  cudaMemset(lo, 0xff, 8);
  cudaMemset(hi, 0, 8);
  cudaMemset(rz, 0, NE * 8);
  k<<<(1u << 23) / 256, 256>>>(lo, hi, rz);
  if (cudaDeviceSynchronize() != cudaSuccess) { fprintf(stderr, "kernel failed\n"); return 1; }
  unsigned long long l, h, z[NE];
  cudaMemcpy(&l, lo, 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(&h, hi, 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(z, rz, sizeof z, cudaMemcpyDeviceToHost);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("{\"device\": \"%s\", \"below_one_minus_table\": {\"min\": %.17g, \"max\": %.17g},\n \"rz_mismatches\": [", prop.name, unord(l), unord(h));
  for (int i = 0; i < NE; ++i) printf("[%d, %llu]%s", E_MIN + i, z[i], i + 1 < NE ? ", " : "");
  printf("]}\n");
  return 0;
}
