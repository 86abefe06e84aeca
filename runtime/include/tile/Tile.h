//===- Tile.h - tilec embedding API --------------------------------------===//
//
// One entry point serves the `tilec` CLI, the tests and host applications:
// compile a .tile source for a target, inspect any stage, and (for the host
// target) launch the kernel in-process over a grid of program instances.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TILE_H
#define TILE_TILE_H

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tile {

/// Stages of the pipeline, in order; `tilec emit --stage=` names them.
/// Lowered is the target's lowering (host: bufferized loops; GPU: per-thread
/// code); Assembly is PTX for NVIDIA targets, AMDGCN assembly for AMD ones.
enum class Phase { AST, Tile, Lowered, LLVM, Assembly };

/// Compile-time parameter overrides (`-D NAME=VALUE`) and what to build.
struct CompileOptions {
  /// Kernel to compile; empty picks the only kernel of the file.
  std::string kernel;
  /// NAME -> VALUE text, e.g. {"T", "f16"}, {"BLOCK", "1024"}.
  std::map<std::string, std::string> defines;
  /// "host" is the in-process CPU target; "sm_80", "sm_89", "sm_90",
  /// "sm_90a" are NVIDIA GPUs; "gfx90a", "gfx942", "gfx950" are AMD GPUs.
  std::string target = "host";
  /// Warps per program on GPU targets.
  unsigned numWarps = 4;
  /// Specialisation: runtime parameter name -> a power of two that divides
  /// it (integers) or its address in bytes (pointers), e.g. {"x", 16}. A
  /// divisor of 1 on an integer parameter specialises it to the value 1.
  std::map<std::string, int64_t> divisibility;
  /// LLVM optimisation level for generated code (0-3).
  unsigned optLevel = 2;
  /// HSA code object version for AMD targets (5 or 6).
  unsigned codeObjectVersion = 5;
  /// NVIDIA targets: also assemble the PTX into a cubin with ptxas (which
  /// must be on PATH or in /usr/local/cuda/bin); GPUBinary::binary holds it.
  bool cubin = false;
  /// GPU targets: workgroups per SM / CU whose shared memory (LDS) must fit
  /// at once; the shared memory budget of a workgroup is 90% of the SM's /
  /// CU's divided by this (planSharedMemory).
  unsigned occupancy = 2;
  /// NVIDIA targets: the most registers a thread may use (PTX .maxnreg, 16
  /// to 255; 0 leaves the choice to ptxas). Fewer registers let more warps
  /// share an SM, at the price of spills to local memory.
  unsigned maxRegisters = 0;
  /// GPU targets: run LLVM's Scalarizer (vector operations of 32 bits and
  /// wider split into scalars) and InstCombine before the -O pipeline. It
  /// helps some kernels and slows others: TurboQuant's MSE stage 1 takes it
  /// (bench/RESULTS.md runs 80 and 88).
  bool scalarize = false;
  /// NVIDIA targets: programs a CTA. K consecutive programs along axis 1
  /// (program_id(1) = K y + j) run as one CTA of K times the threads, each
  /// with its own barriers and shared memory, so that they share an SM; a
  /// launch's grid y must be a multiple of K. Results do not change; the
  /// host target runs programs one by one whatever K is.
  unsigned programsPerCta = 1;
};

/// The element type of a kernel parameter.
enum class ScalarKind { F32, F16, BF16, F8E4M3, F8E5M2, I1, I8, U8, I16, I32, I64 };

/// One runtime parameter of a compiled kernel, as the source declared it.
struct ParamInfo {
  std::string name;
  ScalarKind kind;
  bool isPointer;
};

/// How the language spells `kind`: "f32", "bf16", "f8e4m3", "bool", "i64", ...
/// (what `tilec` writes into .meta files and diagnostics print).
inline const char *scalarKindName(ScalarKind kind) {
  static const char *const names[] = {"f32", "f16", "bf16", "f8e4m3", "f8e5m2", "bool",
                                      "i8",  "u8",  "i16",  "i32",    "i64"};
  return names[static_cast<int>(kind)];
}

/// The kind that scalarKindName spells `name`, or nullopt.
inline std::optional<ScalarKind> parseScalarKind(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(ScalarKind::I64); ++i)
    if (name == scalarKindName(ScalarKind(i)))
      return ScalarKind(i);
  return std::nullopt;
}

/// A parameter's type as the source writes it: "ptr<bf16>", "i32".
inline std::string paramTypeName(const ParamInfo &p) {
  return p.isPointer ? std::string("ptr<") + scalarKindName(p.kind) + ">" : scalarKindName(p.kind);
}

/// A runtime argument value: a pointer, or a scalar stored in the widest
/// member of its class. Build them with the helpers below.
struct Arg {
  enum class Kind { Pointer, Int, Float } kind;
  const void *ptr = nullptr;
  int64_t i = 0;
  double f = 0;
  static Arg pointer(const void *p) { return {Kind::Pointer, p, 0, 0}; }
  static Arg integer(int64_t v) { return {Kind::Int, nullptr, v, 0}; }
  static Arg real(double v) { return {Kind::Float, nullptr, 0, v}; }
};

/// A compile-time parameter the kernel declares tunable
/// (`BLOCK: int = 1024 in [256, 4096]` or `num_warps: int = 4 in {4, 8}`).
struct Tunable {
  std::string name;
  /// The value this instantiation uses (its default or -D).
  std::string value;
  std::vector<std::string> candidates;
};

/// A kernel's name, runtime parameters and tuning space.
struct Signature {
  std::string kernel;
  std::vector<ParamInfo> params;
  std::vector<Tunable> tunables;
  /// The runtime parameters whose values select a tuned configuration.
  std::vector<std::string> tuneKey;
};

/// A result or an error message; the API never throws and never aborts on
/// bad input.
template <typename T> class Result {
public:
  Result(T value) : value(std::move(value)), ok(true) {}
  static Result failure(std::string message) {
    Result r;
    r.error = std::move(message);
    return r;
  }
  explicit operator bool() const { return ok; }
  T &operator*() { return value; }
  T *operator->() { return &value; }
  const std::string &message() const { return error; }

private:
  Result() = default;
  T value{};
  bool ok = false;
  std::string error;
};

class HostKernelImpl;

/// A kernel compiled for the host CPU, ready to launch in-process.
class HostKernel {
public:
  explicit HostKernel(std::unique_ptr<HostKernelImpl> impl);
  ~HostKernel();
  HostKernel(HostKernel &&) noexcept;
  HostKernel &operator=(HostKernel &&) noexcept;

  const std::string &name() const;
  const std::vector<ParamInfo> &params() const;
  /// Runs every program instance of `grid` (x, y, z). Checks the argument
  /// count and kinds first; returns an empty string on success, else the error.
  std::string launch(std::array<uint32_t, 3> grid,
                     const std::vector<Arg> &args) const;

private:
  std::unique_ptr<HostKernelImpl> impl;
};

/// Text of one stage (AST dump, tile IR, lowered IR, LLVM IR) for `source`.
/// Diagnostics carry file:line:col and a caret line.
Result<std::string> emit(const std::string &source, const std::string &fileName,
                         const CompileOptions &options, Phase phase);

/// Parses and type-checks every kernel of `source`, instantiating each with
/// its default compile-time parameters (and `options.defines`). On failure
/// the message holds the errors of every kernel that failed, each printed
/// once.
Result<std::vector<std::string>> check(const std::string &source,
                                       const std::string &fileName,
                                       const CompileOptions &options);

/// A kernel compiled for a GPU target.
struct GPUBinary {
  std::string target;
  std::string kernel;
  /// PTX text (NVIDIA targets).
  std::string ptx;
  /// The HSA code object, an ELF shared object (AMD targets).
  std::string binary;
  std::vector<ParamInfo> params;
  /// Static shared memory the kernel uses, in bytes.
  int64_t sharedBytes = 0;
  /// Threads a CTA (block size): a program's times programsPerCta.
  unsigned threads = 0;
  /// CompileOptions::programsPerCta: a launch runs grid y / programsPerCta
  /// CTAs along y.
  unsigned programsPerCta = 1;
  /// The kernel calls gdc_wait(): it may be launched with programmatic
  /// dependent launch (CUDA sm_90+), overlapping the kernel before it.
  bool waitsOnPriorGrid = false;
  /// The value each tunable parameter was built with: its default or -D
  /// value, or what it was shrunk to (see `remarks`), e.g. {"BLOCK", "4096"}.
  std::map<std::string, std::string> config;
  /// What the compiler changed on its own, one "FILE:LINE:COL: remark: ..."
  /// line each: tunable parameters shrunk to fit the shared memory budget
  /// (SharedMemoryPlan::remark).
  std::vector<std::string> remarks;
  /// Where the compile's time went, in milliseconds, phase by phase in order:
  /// context, frontend, lowering (the MLIR passes), llvm-ir (translation),
  /// llvm (LLVM's optimisation and code generation; AMD: and ld.lld), ptxas
  /// (cubins). A compile that was over the shared memory budget starts with
  /// "over-budget", the compile and plan that preceded the final one.
  std::vector<std::pair<std::string, double>> phaseMs;
};

/// The CTA grid that runs a launch of `grid` programs of a build with
/// `programsPerCta` programs a CTA (GPUBinary::programsPerCta): y divided by
/// it. "" or, when y is not a multiple, why not.
inline std::string ctaGrid(const std::array<uint32_t, 3> &grid, unsigned programsPerCta,
                           unsigned out[3]) {
  if (programsPerCta == 0)
    return "a build with 0 programs a CTA (its programs_per_cta must be 1 to 16)";
  if (grid[1] % programsPerCta)
    return "grid dimension 1 is " + std::to_string(grid[1]) + ", not a multiple of the " +
           std::to_string(programsPerCta) + " programs a CTA of this build (--programs-per-cta)";
  out[0] = grid[0];
  out[1] = grid[1] / programsPerCta;
  out[2] = grid[2];
  return "";
}

/// Compiles one kernel for a GPU target (PTX for NVIDIA, a code object for AMD).
Result<GPUBinary> compileForGPU(const std::string &source, const std::string &fileName,
                                const CompileOptions &options);

/// One shared memory / LDS buffer of a GPU kernel.
struct SharedBuffer {
  /// The op that needs it and where the source asked for it, e.g.
  /// "layout conversion of tensor<8192xf32> at k.tile:12:7".
  std::string what;
  int64_t bytes = 0;
  int64_t offset = 0;
};

/// What the shared memory budget check decided for a kernel on a GPU target.
struct SharedMemoryPlan {
  std::string kernel, target;
  /// Bytes a workgroup may use (the hardware's limit; NVIDIA: with the
  /// dynamic shared memory opt-in, which kernels past 48 KiB take).
  int64_t limit = 0;
  /// 90% of an SM's / CU's shared memory (`perCU`) over `occupancy`.
  int64_t occupancyBytes = 0;
  /// What a workgroup may use: the smaller of `limit` and `occupancyBytes`.
  int64_t budget = 0;
  unsigned occupancy = 0;
  int64_t perCU = 0;
  /// The final configuration's footprint (after buffers with disjoint
  /// lifetimes share bytes) and its buffers.
  int64_t footprint = 0;
  std::vector<SharedBuffer> buffers;
  /// Tunable parameters shrunk to fit, with the final value of each.
  std::map<std::string, std::string> defines;
  /// One line per step, e.g. "BLOCK: 8192 -> 4096 (32768 -> 16384 bytes)";
  /// a step that halves several: "A: 8192 -> 4096, B: 8192 -> 4096 (...)".
  std::vector<std::string> changes;
  /// Empty when the kernel fits as written; else the remark a compile that
  /// applies the plan reports, "FILE:LINE:COL: remark: kernel 'K' needs N
  /// bytes ..., over <the limit(s)>; shrunk to fit: BLOCK 8192 -> 4096 (N -> M
  /// bytes)", located at the kernel's declaration.
  std::string remark;
};

/// Checks a GPU kernel's shared memory footprint against its target's limit
/// and the occupancy budget; when it does not fit, halves the tunable
/// parameters that `options.defines` leaves free (the one that saves the
/// most bytes first, never below its smallest candidate) until it fits.
/// When no halving alone saves bytes (buffers that depend on different
/// tunables share bytes), those whose halving shrinks a buffer are halved
/// together.
/// Fails, naming every buffer, when nothing fits.
Result<SharedMemoryPlan> planSharedMemory(const std::string &source, const std::string &fileName,
                                          const CompileOptions &options);

/// Parses and type-checks one kernel and returns its signature.
Result<Signature> signature(const std::string &source, const std::string &fileName,
                            const CompileOptions &options);

/// Compiles one kernel for the host CPU.
Result<std::shared_ptr<HostKernel>>
compileForHost(const std::string &source, const std::string &fileName,
               const CompileOptions &options);

} // namespace tile

#endif // TILE_TILE_H
