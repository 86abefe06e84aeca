//===- NormHostTest.cpp - The norm kernels compiled and run on the host ---===//
//
// Compiles each norm kernel once per element type with tile::compileForHost
// and checks it with runNormCase over {bf16, f16, f32} x N x M x {contiguous,
// row stride 2N}, every case on its own seed. Then misuse of
// HostKernel::launch, which must come back as an error without running the
// kernel, and the embed ids check that guards embed_sum_rms_norm's launch.
//
//===----------------------------------------------------------------------===//

#include "NormCheck.h"
#include "ReadFile.h"
#include "tile/Tile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

using tile::test::Dtype;

namespace tile::norms {
namespace {

/// A kernel compiled for one element type, or why it did not compile.
struct Compiled {
  std::shared_ptr<HostKernel> kernel;
  std::string error;
};

Compiled compile(const std::string &kernel, Dtype t) {
  std::optional<std::string> source =
      test::readFile(std::string(TILEC_KERNELS_DIR) + "/norms/" + kernel + ".tile");
  if (!source)
    return {nullptr,
            "cannot read " + kernel + ".tile under " TILEC_KERNELS_DIR};
  CompileOptions options;
  options.defines["T"] = test::name(t);
  auto result = compileForHost(*source, kernel + ".tile", options);
  if (!result)
    return {nullptr, result.message()};
  return {*result, ""};
}

/// Compiles each (kernel, element type) once for the whole test program and
/// frees them all in TearDown, before main returns: a HostKernel destroyed
/// during static destruction crashes, as ~ExecutionEngine then JIT-compiles
/// the deinitialiser lookup after LLVM's own statics are gone.
class KernelCache : public testing::Environment {
public:
  const Compiled &get(const std::string &kernel, Dtype t) {
    auto [it, inserted] = kernels.try_emplace({kernel, t});
    if (inserted)
      it->second = compile(kernel, t);
    return it->second;
  }
  void TearDown() override { kernels.clear(); }

private:
  std::map<std::pair<std::string, Dtype>, Compiled> kernels;
};

/// gtest owns the environment.
KernelCache *const kernelCache = static_cast<KernelCache *>(
    testing::AddGlobalTestEnvironment(new KernelCache));

const Compiled &compiled(const std::string &kernel, Dtype t) {
  return kernelCache->get(kernel, t);
}

//===----------------------------------------------------------------------===//
// The matrix
//===----------------------------------------------------------------------===//

struct HostCase {
  NormCase c;
  uint64_t seed;
};

/// splitmix64: distinct, well-mixed seeds from the case index.
uint64_t seedFor(uint64_t index) {
  uint64_t z = index * 0x9E3779B97F4A7C15ull + 0x6E6F726D686F7374ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<HostCase> allCases() {
  std::vector<HostCase> cases;
  for (const std::string &kernel : normKernelNames())
    for (Dtype t : {Dtype::BF16, Dtype::F16, Dtype::F32})
      for (int64_t n : {1, 7, 768, 769, 5120, 5125, 8192})
        for (int64_t m : {1, 7, 83})
          for (bool strided : {false, true})
            cases.push_back(
                {NormCase{kernel, t, m, n, strided}, seedFor(cases.size())});
  return cases;
}

std::string describe(const NormCase &c) {
  return c.kernel + " " + test::name(c.dtype) + " M=" + std::to_string(c.M) +
         " N=" + std::to_string(c.N) + " stride=" + (c.strided ? "2N" : "N");
}

void PrintTo(const HostCase &p, std::ostream *os) {
  *os << describe(p.c) << " seed=" << p.seed;
}

std::string caseName(const testing::TestParamInfo<HostCase> &info) {
  const NormCase &c = info.param.c;
  return c.kernel + "_" + test::name(c.dtype) + "_M" + std::to_string(c.M) +
         "_N" + std::to_string(c.N) + (c.strided ? "_stride2N" : "_strideN");
}

class NormHost : public testing::TestWithParam<HostCase> {};

TEST_P(NormHost, MeetsTierA) {
  const HostCase &p = GetParam();
  const Compiled &k = compiled(p.c.kernel, p.c.dtype);
  ASSERT_TRUE(k.kernel) << describe(p.c) << ": " << k.error;
  NormResult r = runNormCase(*k.kernel, p.c, p.seed);
  EXPECT_TRUE(r.pass) << describe(p.c) << " seed=" << p.seed << ": "
                      << r.failures << " failure(s), first: " << r.error;
  RecordProperty("max_err_over_bound", std::to_string(r.maxErrOverBound));
}

INSTANTIATE_TEST_SUITE_P(Matrix, NormHost, testing::ValuesIn(allCases()),
                         caseName);

//===----------------------------------------------------------------------===//
// Launch misuse
//===----------------------------------------------------------------------===//

testing::AssertionResult mentions(const std::string &error,
                                  const std::string &what) {
  if (error.find(what) != std::string::npos)
    return testing::AssertionSuccess();
  return testing::AssertionFailure()
         << "error \"" << error << "\" does not mention \"" << what << "\"";
}

constexpr uint16_t kPoisonBF16 = 0xFFFF;

/// rms_norm<bf16> on one row of 8; y stays poison unless the kernel runs.
class RmsNormLaunch : public testing::Test {
protected:
  void SetUp() override {
    const Compiled &k = compiled("rms_norm", Dtype::BF16);
    ASSERT_TRUE(k.kernel) << k.error;
    kernel = k.kernel.get();
  }

  /// x, w, y, N, x_stride, y_stride, eps.
  std::vector<Arg> validArgs() const {
    return {Arg::pointer(x.data()), Arg::pointer(w.data()),
            Arg::pointer(y.data()), Arg::integer(kN),
            Arg::integer(kN),       Arg::integer(kN),
            Arg::real(1e-6)};
  }

  bool yUntouched() const {
    return std::all_of(y.begin(), y.end(),
                       [](uint16_t b) { return b == kPoisonBF16; });
  }

  static constexpr int64_t kN = 8;
  static constexpr std::array<uint32_t, 3> kGrid = {1, 1, 1};
  /// bf16 1.0 and 0.5.
  std::vector<uint16_t> x = std::vector<uint16_t>(kN, 0x3F80);
  std::vector<uint16_t> w = std::vector<uint16_t>(kN, 0x3F00);
  std::vector<uint16_t> y = std::vector<uint16_t>(kN, kPoisonBF16);
  const HostKernel *kernel = nullptr;
};

TEST_F(RmsNormLaunch, ValidArgumentsRun) {
  EXPECT_EQ(kernel->launch(kGrid, validArgs()), "");
  for (uint16_t v : y)
    EXPECT_EQ(v, 0x3F00);
}

TEST_F(RmsNormLaunch, WrongArgumentCount) {
  std::vector<Arg> fewer = validArgs();
  fewer.pop_back();
  EXPECT_TRUE(
      mentions(kernel->launch(kGrid, fewer), "takes 7 arguments, got 6"));
  std::vector<Arg> more = validArgs();
  more.push_back(Arg::integer(0));
  EXPECT_TRUE(
      mentions(kernel->launch(kGrid, more), "takes 7 arguments, got 8"));
  EXPECT_TRUE(yUntouched());
}

TEST_F(RmsNormLaunch, PointerForScalar) {
  std::vector<Arg> args = validArgs();
  args[3] = Arg::pointer(x.data());
  EXPECT_TRUE(mentions(kernel->launch(kGrid, args), "needs a scalar"));
  args = validArgs();
  args[6] = Arg::pointer(x.data());
  EXPECT_TRUE(mentions(kernel->launch(kGrid, args), "needs a scalar"));
  EXPECT_TRUE(yUntouched());
}

TEST_F(RmsNormLaunch, ScalarForPointer) {
  std::vector<Arg> args = validArgs();
  args[2] = Arg::integer(0);
  EXPECT_TRUE(mentions(kernel->launch(kGrid, args), "needs a pointer"));
  EXPECT_TRUE(yUntouched());
}

TEST_F(RmsNormLaunch, NullPointer) {
  for (size_t i : {0, 1, 2}) {
    std::vector<Arg> args = validArgs();
    args[i] = Arg::pointer(nullptr);
    EXPECT_TRUE(mentions(kernel->launch(kGrid, args), "null pointer")) << i;
  }
  EXPECT_TRUE(yUntouched());
}

TEST_F(RmsNormLaunch, GridWithZeroDimension) {
  for (std::array<uint32_t, 3> grid :
       {std::array<uint32_t, 3>{0, 1, 1}, std::array<uint32_t, 3>{1, 0, 1},
        std::array<uint32_t, 3>{1, 1, 0}})
    EXPECT_TRUE(mentions(kernel->launch(grid, validArgs()), "grid dimensions"));
  EXPECT_TRUE(yUntouched());
}

TEST_F(RmsNormLaunch, I32OutOfRange) {
  for (int64_t n : {int64_t(INT32_MAX) + 1, int64_t(INT32_MIN) - 1}) {
    std::vector<Arg> args = validArgs();
    args[3] = Arg::integer(n);
    EXPECT_TRUE(mentions(kernel->launch(kGrid, args), "out of range")) << n;
  }
  EXPECT_TRUE(yUntouched());
}

TEST_F(RmsNormLaunch, FloatForInteger) {
  std::vector<Arg> args = validArgs();
  args[4] = Arg::real(8);
  EXPECT_TRUE(mentions(kernel->launch(kGrid, args), "needs an integer"));
  EXPECT_TRUE(yUntouched());
}

//===----------------------------------------------------------------------===//
// Embed ids
//===----------------------------------------------------------------------===//

/// What embed_sum_rms_norm's callers do: check the ids, then launch over M
/// rows. All buffers are contiguous; `table` has `vocab` rows of `n`.
std::string launchEmbedSum(const HostKernel &kernel,
                           const std::vector<int32_t> &ids,
                           const std::vector<uint16_t> &table,
                           const std::vector<uint16_t> &w,
                           std::vector<uint16_t> &y, int64_t m, int64_t k,
                           int64_t n, int64_t vocab) {
  if (std::string bad = checkEmbedIds(ids.data(), m, k, k, vocab); !bad.empty())
    return bad;
  return kernel.launch({static_cast<uint32_t>(m), 1, 1},
                       {Arg::pointer(ids.data()), Arg::pointer(table.data()),
                        Arg::pointer(w.data()), Arg::pointer(y.data()),
                        Arg::integer(k), Arg::integer(n), Arg::integer(k),
                        Arg::integer(n), Arg::integer(n), Arg::real(1e-6)});
}

TEST(EmbedIds, OutOfRangeIdsAreRejectedBeforeLaunch) {
  const Compiled &k = compiled("embed_sum_rms_norm", Dtype::BF16);
  ASSERT_TRUE(k.kernel) << k.error;
  constexpr int64_t m = 2, terms = 3, n = 4, vocab = 5;
  std::vector<uint16_t> table(vocab * n, 0x3F80), w(n, 0x3F80);
  std::vector<uint16_t> y(m * n, kPoisonBF16);
  auto untouched = [&] {
    return std::all_of(y.begin(), y.end(),
                       [](uint16_t b) { return b == kPoisonBF16; });
  };
  for (int32_t bad : {-1, int32_t(vocab), INT32_MAX, INT32_MIN}) {
    std::vector<int32_t> ids = {0, 1, 2, 3, 4, 0};
    ids[4] = bad;
    std::string err =
        launchEmbedSum(*k.kernel, ids, table, w, y, m, terms, n, vocab);
    EXPECT_TRUE(mentions(err, "ids[1][1] = " + std::to_string(bad))) << bad;
    EXPECT_TRUE(untouched()) << bad;
  }
  std::vector<int32_t> ids = {0, 1, 2, 3, 4, 0};
  EXPECT_EQ(launchEmbedSum(*k.kernel, ids, table, w, y, m, terms, n, vocab),
            "");
  for (uint16_t v : y)
    EXPECT_EQ(v, 0x3F80);
}

} // namespace
} // namespace tile::norms
