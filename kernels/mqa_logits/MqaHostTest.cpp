//===- MqaHostTest.cpp - fp8_mqa_logits compiled and run on the host ------===//
//
// The kernel as shipped (H = 64, D = 128) in three (BLOCK_T, CHUNK) builds
// (one chunk a row, several chunks, a chunk that T does not fill), each with
// BLOCK_Q = 1, 2 and 4 query rows per program (S = 1 and 5 leave the last
// program rows past S), on small problems of every window pattern (causal,
// windows, random windows that start before 0 and end past T: the rows of a
// program see different windows), checked at tier B against float64; the
// paged kernel likewise; and each kernel's write set (its first program,
// launched alone, writes its own logits only).
//
//===----------------------------------------------------------------------===//
#include "MqaCheck.h"
#include "ReadFile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>

using namespace tile;
using namespace tile::mqa;

namespace {

/// A kernel built for the host: its parameters and a launcher.
struct HostBuild {
  std::vector<ParamInfo> params;
  norms::Launcher launch;
};

/// The kernel of the .tile file at `path` (reported as `file`) built for the
/// host with `defines`, or the error (in `error`).
HostBuild hostBuild(const char *path, const char *file,
                    const std::map<std::string, std::string> &defines, std::string &error) {
  std::optional<std::string> source = test::readFile(path);
  if (!source) {
    error = std::string("cannot read ") + path;
    return {};
  }
  CompileOptions options;
  options.defines = defines;
  auto kernel = compileForHost(*source, file, options);
  if (!kernel) {
    error = kernel.message();
    return {};
  }
  std::shared_ptr<HostKernel> k = std::move(*kernel);
  return {k->params(), [k](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                           const std::vector<size_t> &) { return k->launch(grid, args); }};
}

/// fp8_mqa_logits or fp8_paged_mqa_logits with BLOCK_T, CHUNK and BLOCK_Q.
HostBuild mqaBuild(bool paged, int64_t blockT, int64_t chunk, int64_t blockQ,
                   std::string &error,
                   std::map<std::string, std::string> defines = {}) {
  defines["BLOCK_T"] = std::to_string(blockT);
  defines["CHUNK"] = std::to_string(chunk);
  defines["BLOCK_Q"] = std::to_string(blockQ);
  return paged ? hostBuild(TILEC_PAGED_MQA_KERNEL, "fp8_paged_mqa_logits.tile", defines, error)
               : hostBuild(TILEC_MQA_KERNEL, "fp8_mqa_logits.tile", defines, error);
}

/// fp8_mqa_logits (on the host its staged loop runs unstaged).
TEST(MqaHostTest, MatchesTheReference) {
  uint64_t seed = 500;
  for (int64_t blockQ : {1, 2, 4})
    for (auto [blockT, chunk] : std::vector<std::pair<int64_t, int64_t>>{{64, 1024}, {32, 64},
                                                                          {16, 48}}) {
      std::string error;
      HostBuild build = mqaBuild(false, blockT, chunk, blockQ, error);
      ASSERT_TRUE(error.empty()) << error;
      for (auto [s, t] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {5, 37}, {16, 100}})
        for (Pattern pattern : {Pattern::Causal, Pattern::Windows, Pattern::Random}) {
          MqaCase c{s, t, pattern, 16};
          MqaResult r = runMqaCase(build.params, build.launch, c, chunk, seed++, blockQ);
          EXPECT_TRUE(r.pass) << "BLOCK_Q=" << blockQ << " BLOCK_T=" << blockT
                              << " CHUNK=" << chunk << " S=" << s << " T=" << t << " "
                              << patternName(pattern) << ": " << r.error;
        }
    }
}

/// A program writes its own logits only: launched as the first program
/// alone (its BLOCK_Q rows and CHUNK keys), it writes each of those logits (a
/// value, or -inf outside a row's window) and leaves every other logit, the
/// padding columns and the guard rows NaN. A store past a program's rows or
/// chunk goes unnoticed in a whole-grid launch on the host, where the program
/// that owns those logits writes them afterwards.
TEST(MqaHostTest, ProgramsWriteOnlyTheirOwnLogits) {
  uint64_t seed = 600;
  for (int64_t blockQ : {1, 2, 4})
    for (auto [blockT, chunk] : std::vector<std::pair<int64_t, int64_t>>{{16, 48}, {32, 64}}) {
      std::string error;
      HostBuild build = mqaBuild(false, blockT, chunk, blockQ, error);
      ASSERT_TRUE(error.empty()) << error;
      MqaProblem p = makeProblem(MqaCase{5, 100, Pattern::Random, 16}, seed++);
      ASSERT_EQ(build.launch({1, 1, 1}, p.args(), p.bytes()), "");
      int64_t wrong = 0;
      std::string first;
      for (int64_t i = 0; i < p.c.S + kGuardRows; ++i)
        for (int64_t j = 0; j < p.stride; ++j) {
          bool own = i < std::min(blockQ, p.c.S) && j < std::min(chunk, p.c.T);
          float x = p.logits[size_t(i * p.stride + j)];
          if (std::isnan(x) == own && wrong++ == 0)
            first = "logits[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
                    std::to_string(x) + (own ? " (not written)" : " (written, not owned)");
        }
      EXPECT_EQ(wrong, 0) << "BLOCK_Q=" << blockQ << " BLOCK_T=" << blockT << " CHUNK=" << chunk
                          << ": " << first;
    }
}

TEST(MqaHostTest, PagedMatchesTheReference) {
  uint64_t seed = 700;
  // BLOCK_Q = 2: two query rows of a sequence a program (next_n = 1 and 3
  // leave a program a row past next_n).
  for (auto [blockT, chunk, blockQ] : std::vector<std::array<int64_t, 3>>{
           {64, 1024, 1}, {16, 48, 1}, {16, 48, 2}, {64, 256, 2}}) {
    std::string error;
    HostBuild build = mqaBuild(true, blockT, chunk, blockQ, error);
    ASSERT_TRUE(error.empty()) << error;
    for (PagedCase c : {PagedCase{{1}, 1, 16}, PagedCase{{37, 5, 100}, 2, 16},
                        PagedCase{{1, 70}, 2, 64}, PagedCase{{130, 64}, 1, 64},
                        PagedCase{{2, 90, 41}, 3, 16}}) {
      MqaResult r = runPagedCase(build.params, build.launch, c, chunk, seed++, blockQ);
      EXPECT_TRUE(r.pass) << "BLOCK_T=" << blockT << " CHUNK=" << chunk << " BLOCK_Q=" << blockQ
                          << " next_n="
                          << c.nextN << " block_size=" << c.blockSize << ": " << r.error;
    }
  }
}

/// The paged kernel's first program alone writes its own logits only (its
/// BLOCK_Q rows of sequence 0 and CHUNK keys), as ProgramsWriteOnlyTheirOwnLogits
/// checks for fp8_mqa_logits: runPagedCase makes the problem, and the launcher
/// given to it runs program (0, 0) and checks what was written (the case's
/// own check, which expects every program's logits, is not used).
TEST(MqaHostTest, PagedProgramsWriteOnlyTheirOwnLogits) {
  uint64_t seed = 800;
  for (auto [blockT, chunk, blockQ] :
       std::vector<std::array<int64_t, 3>>{{16, 48, 1}, {16, 48, 2}, {64, 256, 2}}) {
    std::string error;
    HostBuild build = mqaBuild(true, blockT, chunk, blockQ, error);
    ASSERT_TRUE(error.empty()) << error;
    PagedCase c{{300, 5, 100}, 3, 16};
    std::string wrong;
    bool launched = false;
    norms::Launcher first = [&](std::array<uint32_t, 3>, const std::vector<Arg> &args,
                                const std::vector<size_t> &bytes) {
      if (std::string err = build.launch({1, 1, 1}, args, bytes); !err.empty())
        return err;
      launched = true;
      // logits (argument 6) with max_context (10) and logits_stride (11).
      const float *logits = static_cast<const float *>(args[6].ptr);
      int64_t maxContext = args[10].i, stride = args[11].i;
      for (int64_t k = 0; k < int64_t(bytes[6] / 4) && wrong.empty(); ++k) {
        int64_t i = k / stride, j = k % stride;
        bool own = i < std::min(blockQ, c.nextN) && j < std::min(chunk, maxContext);
        if (std::isnan(logits[k]) == own)
          wrong = "logits[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
                  std::to_string(logits[k]) + (own ? " (not written)" : " (written, not owned)");
      }
      return std::string();
    };
    runPagedCase(build.params, first, c, chunk, seed++, blockQ);
    EXPECT_TRUE(launched);
    EXPECT_EQ(wrong, "") << "BLOCK_T=" << blockT << " CHUNK=" << chunk << " BLOCK_Q=" << blockQ;
  }
}

/// PAGE > 0: the kernel specialised on block_size = PAGE, where each page
/// holds whole blocks (one page number a block: PAGE 16 and 32 with BLOCK_T
/// 16) and where blocks span pages (PAGE 16 with BLOCK_T 64); launched with
/// another block_size, it reads no key and every logit is NaN.
TEST(MqaHostTest, PagedSpecialisedOnTheBlockSize) {
  uint64_t seed = 900;
  for (auto [blockT, chunk, blockQ, page] : std::vector<std::array<int64_t, 4>>{
           {16, 48, 1, 16}, {16, 48, 2, 32}, {64, 256, 1, 16}, {32, 64, 2, 16}}) {
    std::string error;
    HostBuild build =
        mqaBuild(true, blockT, chunk, blockQ, error, {{"PAGE", std::to_string(page)}});
    ASSERT_TRUE(error.empty()) << error;
    std::string config = "BLOCK_T=" + std::to_string(blockT) + " CHUNK=" + std::to_string(chunk) +
                         " BLOCK_Q=" + std::to_string(blockQ) + " PAGE=" + std::to_string(page);
    for (PagedCase c : {PagedCase{{1}, 1, page}, PagedCase{{37, 5, 100}, 2, page},
                        PagedCase{{130, 64}, 1, page}, PagedCase{{2, 90, 41}, 3, page}}) {
      MqaResult r = runPagedCase(build.params, build.launch, c, chunk, seed++, blockQ);
      EXPECT_TRUE(r.pass) << config << " next_n=" << c.nextN << ": " << r.error;
    }
    MqaResult r = runPagedCase(build.params, build.launch, PagedCase{{37, 5, 100}, 2, 2 * page},
                               chunk, seed++, blockQ);
    EXPECT_FALSE(r.pass) << config << " launched with block_size " << 2 * page;
    EXPECT_EQ(r.failures, 3 * 2 * 100) << config << ": every logit must be NaN";
    EXPECT_NE(r.error.find("nan"), std::string::npos) << r.error;
  }
}

} // namespace
