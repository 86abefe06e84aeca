// A probe of the load path of TurboQuant's MSE stage 1 (k4v4, D = 128, Hkv = 8,
// block_size = 16), not a kernel: it reads a block's slots as stage 1's `.mma.tok`
// build does and gathers every key code from a lane-held table by shuffle, with
// no matrix products or softmax, in these ways:
//   direct   each lane loads its 16-bit words from global memory one block ahead
//            (16 key, 8 value and 6 field loads a 16-token block in the operand
//            layouts' pattern; stage 1 makes 16 value loads, a lane holding four
//            tokens' values where here it holds its two tokens'); direct2 loads
//            two blocks ahead
//   bulk     one lane copies each token's 16-byte aligned slot span into a padded
//            shared-memory row with cp.async.bulk (TMA, completed on an mbarrier,
//            one block ahead), and the lanes read the same words from there
//   chunkN   as bulk, but the 32 lanes copy the spans with 16-byte cp.async,
//            N - 1 blocks ahead
//   pageN    a program is 8 warps, one a kv head: one thread copies each page
//            (its 16 tokens' slots of all 8 kv heads, contiguous) whole with one
//            cp.async.bulk into a ring of N shared buffers, and each warp reads
//            its head's words from there
//   asyncN   as pageN, but the 256 threads copy each page with 16-byte cp.async
//            (Ampere's per-thread async copy), N - 1 pages ahead; asyncpad2
//            zero-fills each stage past the page up to 32 KiB, as tilec's
//            power-of-two page tile does
// All sum the same values in the same order, so their checksums must match bit
// for bit. Prints the time (median of 10 after 2 warm-ups) and GB/s over the
// slot bytes. Built with nvcc -arch=sm_90a (cp.async.bulk is sm_90+):
//   nvcc -O3 -arch=sm_90a -cudart static -o tq_stage_probe bench/probes/tq_stage_probe.cu
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

constexpr int kSlot = 134, kHkv = 8, kPage = 16, kBlock = 16, kRow = 176;
constexpr int kValues = 66, kNorm = 64, kScale = 130;

#define CHECK_CU(x)                                                                                \
  do {                                                                                             \
    CUresult e = (x);                                                                              \
    if (e != CUDA_SUCCESS) {                                                                       \
      const char *what = "";                                                                       \
      cuGetErrorString(e, &what);                                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, what);                               \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e = (x);                                                                           \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));              \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

struct Args {
  const uint8_t *cache;
  const int *table;
  float *out;
  int seq, pagesPerSeq, splits;
};

// The 16-bit word at byte `at` of the slot (global or shared).
__device__ uint32_t word(const uint8_t *p, int at) {
  return *reinterpret_cast<const uint16_t *>(p + at);
}

// A lane's 15 words of one token's slot at `p`: 8 of the key (4 codes each), 4
// of the values, 3 fields.
constexpr int kWords = 15;
__device__ void load(const uint8_t *p, int r, int g, uint32_t (&w)[kWords]) {
#pragma unroll
  for (int u = 0; u < 8; ++u)
    w[u] = word(p, 8 * u + 2 * r);
#pragma unroll
  for (int i = 0; i < 4; ++i)
    w[8 + i] = word(p, kValues + 2 * ((3 * g) & 7) + 16 * i);
  w[12] = word(p, kNorm), w[13] = word(p, kScale), w[14] = word(p, kScale + 2);
}

// What a lane makes of them: its 32 key codes gathered from the table by
// shuffle, and the rest, summed.
__device__ float consume(const uint32_t (&w)[kWords], float level) {
  float acc = 0.f;
#pragma unroll
  for (int u = 0; u < 8; ++u)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      acc += __shfl_sync(0xffffffffu, level, (w[u] >> (4 * e)) & 15);
#pragma unroll
  for (int i = 8; i < kWords; ++i)
    acc += float(w[i]);
  return acc;
}

// A block's two token rows g and g + 8 (row g at `row0`, `stride` bytes
// apart) read from shared memory and added to `acc`, as direct's registers are.
__device__ void consumeRows(float &acc, const uint8_t *row0, int stride, int r, int g,
                            float level) {
  uint32_t w[2][kWords];
#pragma unroll
  for (int row = 0; row < 2; ++row)
    load(row0 + (g + 8 * row) * stride, r, g, w[row]);
#pragma unroll
  for (int row = 0; row < 2; ++row)
    acc += consume(w[row], level);
}

// cp.async of 16 bytes, `bytes` of them from `src` (the rest zero-filled),
// and the group and wait operations around it.
__device__ void copy16(void *dst, const void *src, int bytes) {
  uint32_t d = uint32_t(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(bytes)
               : "memory");
}
__device__ void commitGroup() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int Pending> __device__ void waitGroups() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

__device__ int64_t slotAt(const Args &a, int b, int h, int tok) {
  int page = a.table[b * a.pagesPerSeq + tok / kPage];
  return (int64_t(page) * kPage + tok % kPage) * kHkv * kSlot + int64_t(h) * kSlot;
}

// One warp a program: (sequence b, kv head h, split s). The words of block
// n + Depth are loaded while block n is consumed; stage 1 runs at Depth 1.
template <int Depth> __global__ void direct(Args a) {
  int b = blockIdx.x, h = blockIdx.y, s = blockIdx.z, lane = threadIdx.x;
  int per = a.seq / a.splits, start = s * per, end = start + per;
  int r = lane % 4, g = lane / 4;
  float level = 0.01f * (lane % 16) - 0.07f, acc = 0.f;
  uint32_t w[Depth + 1][2][kWords];
#pragma unroll
  for (int d = 0; d < Depth; ++d)
#pragma unroll
    for (int row = 0; row < 2; ++row)
      load(a.cache + slotAt(a, b, h, min(start + d * kBlock, end - kBlock) + g + 8 * row), r, g,
           w[d][row]);
  for (int t0 = start; t0 < end; t0 += kBlock) {
    int ahead = min(t0 + Depth * kBlock, end - kBlock);
#pragma unroll
    for (int row = 0; row < 2; ++row)
      load(a.cache + slotAt(a, b, h, ahead + g + 8 * row), r, g, w[Depth][row]);
#pragma unroll
    for (int row = 0; row < 2; ++row)
      acc += consume(w[0][row], level);
#pragma unroll
    for (int d = 0; d < Depth; ++d)
#pragma unroll
      for (int row = 0; row < 2; ++row)
#pragma unroll
        for (int i = 0; i < kWords; ++i)
          w[d][row][i] = w[d + 1][row][i];
  }
  a.out[((b * kHkv + h) * a.splits + s) * 32 + lane] = acc;
}

__device__ void bulkCopy(uint8_t *dst, const uint8_t *src, int bytes, uint64_t *bar) {
  uint32_t d = uint32_t(__cvta_generic_to_shared(dst));
  uint32_t m = uint32_t(__cvta_generic_to_shared(bar));
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
               "%2, [%3];" ::"r"(d),
               "l"(src), "r"(bytes), "r"(m)
               : "memory");
}

__device__ void expect(uint64_t *bar, int bytes) {
  uint32_t m = uint32_t(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(m), "r"(bytes)
               : "memory");
}

__device__ void wait(uint64_t *bar, uint32_t parity) {
  uint32_t m = uint32_t(__cvta_generic_to_shared(bar));
  asm volatile("{\n .reg .pred done;\n wait_%=:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               " @!done bra wait_%=;\n}" ::"r"(m),
               "r"(parity)
               : "memory");
}

// Lane 0 copies the 16 slots of the block at t0 into stage `buf`: each slot's
// 16-byte aligned span (at most 160 bytes) into a 176-byte row.
__device__ void stage(const Args &a, int b, int h, int t0, uint8_t *buf, uint64_t *bar) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  expect(bar, kBlock * 160);
  for (int t = 0; t < kBlock; ++t) {
    int64_t slot = slotAt(a, b, h, t0 + t);
    bulkCopy(buf + t * kRow, a.cache + (slot & ~int64_t(15)), 160, bar);
  }
}

__global__ void bulk(Args a) {
  __shared__ alignas(128) uint8_t rows[2][kBlock * kRow];
  __shared__ alignas(8) uint64_t bars[2];
  int b = blockIdx.x, h = blockIdx.y, s = blockIdx.z, lane = threadIdx.x;
  int per = a.seq / a.splits, start = s * per, end = start + per;
  int r = lane % 4, g = lane / 4;
  float level = 0.01f * (lane % 16) - 0.07f, acc = 0.f;
  // Every slot of kv head h starts at the same byte mod 16 (Hkv SLOT % 16 == 0).
  int skew = int((int64_t(h) * kSlot) & 15);
  if (lane == 0) {
    for (int i = 0; i < 2; ++i) {
      uint32_t m = uint32_t(__cvta_generic_to_shared(&bars[i]));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(m));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    stage(a, b, h, start, rows[0], &bars[0]);
  }
  __syncwarp();
  // Block n is in stage n % 2, whose barrier completes its phase n / 2.
  for (int t0 = start, n = 0; t0 < end; t0 += kBlock, ++n) {
    int i = n & 1;
    if (lane == 0 && t0 + kBlock < end)
      stage(a, b, h, t0 + kBlock, rows[i ^ 1], &bars[i ^ 1]);
    wait(&bars[i], uint32_t(n >> 1) & 1);
    consumeRows(acc, rows[i] + skew, kRow, r, g, level);
    __syncwarp();
  }
  a.out[((b * kHkv + h) * a.splits + s) * 32 + lane] = acc;
}

// As bulk (one warp a program, each token's 16-byte aligned 160-byte slot
// span in a 176-byte shared row), but the 32 lanes copy the spans' 160
// 16-byte chunks a block with cp.async, Stages - 1 blocks ahead.
template <int Stages> __global__ void chunk(Args a) {
  __shared__ alignas(128) uint8_t rows[Stages][kBlock * kRow];
  int b = blockIdx.x, h = blockIdx.y, s = blockIdx.z, lane = threadIdx.x;
  int per = a.seq / a.splits, start = s * per, blocks = per / kBlock;
  int r = lane % 4, g = lane / 4;
  float level = 0.01f * (lane % 16) - 0.07f, acc = 0.f;
  int skew = int((int64_t(h) * kSlot) & 15);
  auto issue = [&](int n) {
    if (n < blocks)
      for (int c = lane; c < kBlock * 10; c += 32) {
        int t = c / 10, k = c % 10;
        int64_t slot = slotAt(a, b, h, start + n * kBlock + t) & ~int64_t(15);
        copy16(&rows[n % Stages][t * kRow + 16 * k], a.cache + slot + 16 * k, 16);
      }
    commitGroup();
  };
  for (int n = 0; n < Stages - 1; ++n)
    issue(n);
  for (int n = 0; n < blocks; ++n) {
    __syncwarp();
    issue(n + Stages - 1);
    waitGroups<Stages - 1>();
    __syncwarp();
    consumeRows(acc, rows[n % Stages] + skew, kRow, r, g, level);
  }
  a.out[((b * kHkv + h) * a.splits + s) * 32 + lane] = acc;
}

// A page holds block_size tokens' slots of every kv head, contiguous: 16 x 8 x
// 134 = 17152 bytes, a multiple of 16. `page` copies each page whole with one
// cp.async.bulk into a ring of Stages shared buffers, and each of its 8 warps
// (one a kv head) reads its slot's words from there: a program is (sequence,
// split) with 256 threads instead of (sequence, kv head, split) with 32.
constexpr int kPageBytes = kPage * kHkv * kSlot;
template <int Stages> __global__ void page(Args a) {
  extern __shared__ __align__(128) uint8_t pages[];
  __shared__ alignas(8) uint64_t bars[Stages];
  int b = blockIdx.x, s = blockIdx.y, h = threadIdx.x / 32, lane = threadIdx.x % 32;
  int per = a.seq / a.splits, start = s * per, blocks = per / kBlock;
  int r = lane % 4, g = lane / 4;
  float level = 0.01f * (lane % 16) - 0.07f, acc = 0.f;
  auto issue = [&](int n) {
    int p = a.table[b * a.pagesPerSeq + (start + n * kBlock) / kPage];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    expect(&bars[n % Stages], kPageBytes);
    bulkCopy(pages + (n % Stages) * kPageBytes, a.cache + int64_t(p) * kPageBytes, kPageBytes,
             &bars[n % Stages]);
  };
  if (threadIdx.x == 0) {
    for (int i = 0; i < Stages; ++i) {
      uint32_t m = uint32_t(__cvta_generic_to_shared(&bars[i]));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(m));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int n = 0; n < Stages - 1 && n < blocks; ++n)
      issue(n);
  }
  __syncthreads();
  // Block n is in buffer n % Stages, whose barrier completes its phase
  // n / Stages; the buffer of block n - 1 is refilled once every warp is done.
  for (int n = 0; n < blocks; ++n) {
    __syncthreads();
    if (threadIdx.x == 0 && n + Stages - 1 < blocks)
      issue(n + Stages - 1);
    wait(&bars[n % Stages], uint32_t(n / Stages) & 1);
    const uint8_t *rows = pages + (n % Stages) * kPageBytes + h * kSlot;
    consumeRows(acc, rows, kHkv * kSlot, r, g, level);
  }
  a.out[((b * kHkv + h) * a.splits + s) * 32 + lane] = acc;
}

// As page, but the 256 threads copy each page with 16-byte cp.async (each
// thread chunks c = threadIdx.x + 256 k of the page, a commit group a page),
// Stages - 1 pages ahead; Stages = 1 copies and waits in the same iteration.
// Stride: a stage's bytes; past the page's, the threads zero-fill 16-byte
// chunks (cp.async with no source bytes) up to it, as tilec does for a page
// held in a power-of-two tile.
template <int Stages, int Stride = kPageBytes> __global__ void pageAsync(Args a) {
  extern __shared__ __align__(128) uint8_t pages[];
  int b = blockIdx.x, s = blockIdx.y, h = threadIdx.x / 32, lane = threadIdx.x % 32;
  int per = a.seq / a.splits, start = s * per, blocks = per / kBlock;
  int r = lane % 4, g = lane / 4;
  float level = 0.01f * (lane % 16) - 0.07f, acc = 0.f;
  auto issue = [&](int n) {
    if (n < blocks) {
      int p = a.table[b * a.pagesPerSeq + (start + n * kBlock) / kPage];
      const uint8_t *src = a.cache + int64_t(p) * kPageBytes;
      uint8_t *dst = pages + (n % Stages) * Stride;
      for (int c = threadIdx.x; c < Stride / 16; c += blockDim.x) {
        bool live = c < kPageBytes / 16;
        copy16(dst + 16 * c, src + 16 * (live ? c : 0), live ? 16 : 0);
      }
    }
    commitGroup();
  };
  for (int n = 0; n < Stages - 1; ++n)
    issue(n);
  // Iteration n: the barrier ends every warp's reads of block n - 1, whose
  // buffer the copies of block n + Stages - 1 then fill; block n's group is
  // the oldest of the Stages in flight.
  for (int n = 0; n < blocks; ++n) {
    __syncthreads();
    issue(n + Stages - 1);
    waitGroups<Stages - 1>();
    __syncthreads();
    const uint8_t *rows = pages + (n % Stages) * Stride + h * kSlot;
    consumeRows(acc, rows, kHkv * kSlot, r, g, level);
  }
  a.out[((b * kHkv + h) * a.splits + s) * 32 + lane] = acc;
}

// The median time of 10 runs of `launch` after 2 warm-ups, in ms.
template <class Launch> double medianMs(Launch launch, cudaEvent_t e0, cudaEvent_t e1) {
  std::vector<float> times;
  for (int rep = 0; rep < 12; ++rep) {
    CHECK(cudaEventRecord(e0));
    launch();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaGetLastError());
    float t;
    CHECK(cudaEventElapsedTime(&t, e0, e1));
    if (rep >= 2)
      times.push_back(t);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Times the tilec build of bench/probes/tq_page_probe.tile at `ptx` (its
// shared_bytes from `ptx`.meta) on the same cache and page table, and checks
// its sums against the host's (f64; the kernel sums in f32).
int runTilec(const char *ptx, const Args &a, int B, int splits, int seq, int pagesPerSeq,
             const std::vector<uint64_t> &host, const std::vector<int> &table, double gb,
             cudaEvent_t e0, cudaEvent_t e1) {
  std::ifstream file(ptx), meta(std::string(ptx) + ".meta");
  std::stringstream text;
  text << file.rdbuf();
  int threads = 0, shared = 0;
  for (std::string key; meta >> key;)
    if (key == "threads")
      meta >> threads;
    else if (key == "shared_bytes")
      meta >> shared;
  CUmodule module;
  CUfunction fn;
  CHECK_CU(cuModuleLoadData(&module, text.str().c_str()));
  CHECK_CU(cuModuleGetFunction(&fn, module, "tq_page_probe"));
  int dynamic = shared > 48 * 1024 ? shared : 0;
  if (dynamic)
    CHECK_CU(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic));
  float levels[16];
  for (int c = 0; c < 16; ++c)
    levels[c] = 0.01f * c - 0.07f;
  float *dLevels, *dOut;
  size_t outs = size_t(B) * splits * kHkv;
  CHECK(cudaMalloc(&dLevels, sizeof levels));
  CHECK(cudaMemcpy(dLevels, levels, sizeof levels, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&dOut, outs * sizeof(float)));
  CHECK(cudaMemset(dOut, 0xff, outs * sizeof(float)));
  int per = seq / splits;
  void *args[] = {(void *)&a.cache, (void *)&a.table, &dLevels, &dOut, &pagesPerSeq, &per};
  double ms = medianMs(
      [&] {
        CHECK_CU(cuLaunchKernel(fn, B, splits, 1, threads, 1, 1, dynamic, nullptr, args, nullptr));
      },
      e0, e1);
  std::vector<float> got(outs);
  CHECK(cudaMemcpy(got.data(), dOut, outs * sizeof(float), cudaMemcpyDeviceToHost));
  const auto *bytes = reinterpret_cast<const uint8_t *>(host.data());
  auto half = [&](size_t at) { return uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8; };
  double worst = 0;
  size_t bad = 0;
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < splits; ++s)
      for (int h = 0; h < kHkv; ++h) {
        double want = 0, mass = 0;
        for (int n = 0; n < per / kBlock; ++n) {
          size_t page = size_t(table[b * pagesPerSeq + s * (per / kBlock) + n]);
          for (int t = 0; t < kPage; ++t) {
            size_t slot = (page * kPage + t) * kHkv * kSlot + size_t(h) * kSlot;
            for (int k = 0; k < 32; ++k)
              for (int e = 0; e < 4; ++e) {
                double v = levels[(half(slot + 2 * k) >> (4 * e)) & 15];
                want += v, mass += std::fabs(v);
              }
            for (int at : {66, 82, 98, 114, 64, 130, 132}) {
              want += half(slot + at);
              mass += half(slot + at);
            }
          }
        }
        float g = got[(size_t(b) * splits + s) * kHkv + h];
        double err = std::fabs(g - want) / mass;
        worst = std::max(worst, std::isnan(g) ? 1.0 : err);
        bad += !(err <= 1e-5);
      }
  int regs = 0, perSm = 0;
  CHECK_CU(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
  CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, threads, dynamic));
  std::printf("  %s: %3d regs, %2d warps an SM: %8.1f us %5.0f GB/s, sums %s (%zu of %zu off "
              "by more than 1e-5 of their mass; worst %.2g)\n",
              ptx, regs, perSm * threads / 32, ms * 1e3, gb / ms * 1e3, bad ? "DIFFER" : "match", bad,
              outs, worst);
  return bad != 0;
}

int main(int argc, char **argv) {
  int B = argc > 1 ? std::atoi(argv[1]) : 32, seq = argc > 2 ? std::atoi(argv[2]) : 8192;
  int splits = argc > 3 ? std::atoi(argv[3]) : 6;
  while ((seq / splits) % kBlock)
    ++splits;
  int pagesPerSeq = seq / kPage, pages = B * pagesPerSeq;
  size_t bytes = size_t(pages) * kPage * kHkv * kSlot;
  std::vector<uint64_t> host((bytes + 256) / 8);
  std::mt19937_64 rng(20261203);
  for (auto &x : host)
    x = rng();
  std::vector<int> table(pages);
  for (int i = 0; i < pages; ++i)
    table[i] = i;
  std::shuffle(table.begin(), table.end(), rng);
  Args a{};
  uint8_t *cache;
  int *bt;
  CHECK(cudaMalloc(&cache, host.size() * 8));
  CHECK(cudaMemcpy(cache, host.data(), host.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&bt, pages * sizeof(int)));
  CHECK(cudaMemcpy(bt, table.data(), pages * sizeof(int), cudaMemcpyHostToDevice));
  a.cache = cache, a.table = bt, a.seq = seq, a.pagesPerSeq = pagesPerSeq, a.splits = splits;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  // Each variant free, and held as the real build is: 12 one-warp programs an
  // SM (168 registers), two 8-warp ones, by dynamic shared memory the kernels
  // do not use. Every variant's checksums must match direct's.
  struct Variant {
    const char *name;
    void (*kernel)(Args);
    int warps;
    size_t smem;
  };
  const Variant variants[] = {{"direct", direct<1>, 1, 0},
                              {"direct2", direct<2>, 1, 0},
                              {"bulk", bulk, 1, 0},
                              {"chunk2", chunk<2>, 1, 0},
                              {"chunk3", chunk<3>, 1, 0},
                              {"chunk4", chunk<4>, 1, 0},
                              {"page2", page<2>, 8, 2 * kPageBytes},
                              {"page3", page<3>, 8, 3 * kPageBytes},
                              {"page4", page<4>, 8, 4 * kPageBytes},
                              {"async1", pageAsync<1>, 8, kPageBytes},
                              {"async2", pageAsync<2>, 8, 2 * kPageBytes},
                              {"async3", pageAsync<3>, 8, 3 * kPageBytes},
                              {"asyncpad2", pageAsync<2, 32768>, 8, 2 * 32768}};
  constexpr int kVariants = sizeof(variants) / sizeof(variants[0]);
  std::vector<float *> out(kVariants);
  size_t outs = size_t(B) * kHkv * splits * 32;
  for (auto &o : out)
    CHECK(cudaMalloc(&o, outs * sizeof(float)));
  int sms;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  double gb = double(bytes) / 1e9;
  int failed = 0;
  for (bool held : {false, true}) {
    std::printf("B=%d seq=%d splits=%d (%d SMs), %s:\n", B, seq, splits, sms,
                held ? "held to 12 one-warp or 2 8-warp programs an SM" : "free occupancy");
    double base = 0;
    std::vector<float> ref;
    for (int v = 0; v < kVariants; ++v) {
      const Variant &x = variants[v];
      cudaFuncAttributes attr;
      CHECK(cudaFuncGetAttributes(&attr, x.kernel));
      size_t hold = x.warps == 1 ? 18 * 1024 : 100 * 1024;
      size_t dyn = held ? std::max(x.smem, hold - attr.sharedSizeBytes) : x.smem;
      CHECK(cudaFuncSetAttribute(x.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn)));
      dim3 grid = x.warps == 1 ? dim3(B, kHkv, splits) : dim3(B, splits);
      a.out = out[v];
      CHECK(cudaMemset(out[v], 0xff, outs * sizeof(float)));
      double ms = medianMs([&] { x.kernel<<<grid, 32 * x.warps, dyn>>>(a); }, e0, e1);
      base = v ? base : ms;
      std::vector<float> r(outs);
      CHECK(cudaMemcpy(r.data(), out[v], outs * sizeof(float), cudaMemcpyDeviceToHost));
      if (ref.empty())
        ref = r;
      size_t mismatches = 0;
      for (size_t i = 0; i < outs; ++i)
        mismatches += !(r[i] == ref[i]) || std::isnan(r[i]);
      int perSm;
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, x.kernel, 32 * x.warps, dyn));
      std::printf("  %-8s %3d regs, %2d warps an SM: %8.1f us %5.0f GB/s, %.3fx direct's time, "
                  "checksums %s (%zu of %zu differ)\n",
                  x.name, attr.numRegs, perSm * x.warps, ms * 1e3, gb / ms * 1e3, ms / base,
                  mismatches ? "DIFFER" : "equal", mismatches, outs);
      failed |= mismatches != 0;
    }
  }
  for (int i = 4; i < argc; ++i)
    failed |= runTilec(argv[i], a, B, splits, seq, pagesPerSeq, host, table, gb, e0, e1);
  return failed;
}
