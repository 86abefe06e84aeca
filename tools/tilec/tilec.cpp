//===- tilec.cpp - the tilec command line ---------------------------------===//
//
// A thin shell over the embedding API in tile/Tile.h.
//
//===----------------------------------------------------------------------===//
#include "Tilec.h"
#include "tile/Runtime.h"

#include "llvm/ADT/StringRef.h"
#include "tile/Tile.h"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

using namespace tilec;

namespace {

const char *kUsage = R"(usage: tilec <command> [options]

commands:
  check FILE          parse and type-check every kernel of FILE
  emit FILE           print one stage of the pipeline for a kernel of FILE
  compile FILE        compile a kernel of FILE for a GPU target (PTX or an HSA
                      code object, + metadata)
  aot FILE            write a C++ launcher with the kernel's images embedded
  budget FILE         show a kernel's shared memory (LDS) buffers, the target's
                      limit and occupancy budget, and the tunables shrunk to fit
  tune FILE           autotune a kernel's tunable parameters for one key on
                      this machine's device and store the choice in the cache
  selftest [DIR]      check every .tile under DIR (default: kernels) and run the
                      norm kernels on the host CPU against their references
  cache info|list|clear
                      show or empty the disk cache of compiled kernels

Run 'tilec <command> --help' for the options of a command.

exit codes: 0 success, 1 the source has errors, 2 bad command line or
unreadable file, 3 a selftest check failed
)";

const char *kBudgetUsage = R"(usage: tilec budget FILE --target=T [-D NAME=VALUE]... [--kernel NAME]
                    [--num-warps=N] [--occupancy=N]

Lays the kernel out for GPU target T and prints its shared memory (LDS on
AMD) buffers after reuse, the target's per-workgroup limit (NVIDIA: 227 KiB
on sm_90, with the dynamic shared memory opt-in past 48 KiB; AMD: the CU's
LDS), and the budget that leaves
room for --occupancy workgroups per SM / CU (default 2; 90% of the SM's /
CU's memory divided among them). When the kernel does not fit, tunable
parameters the command line does not fix with -D are halved, the one that
saves the most bytes first and never below their smallest candidate, as
`tilec compile` does (when buffers of different tunables share bytes, so that
no halving alone saves any, those tunables are halved together); when nothing
fits it fails (exit 1) listing every buffer.
)";

const char *kCheckUsage = R"(usage: tilec check FILE [-D NAME=VALUE]... [--kernel NAME]

Parses FILE and type-checks each kernel (or only --kernel NAME), instantiated
with its default compile-time parameters overridden by -D. Prints the checked
kernels; errors go to stderr as file:line:col with the source line and a caret,
those of every kernel (a kernel's error does not stop the others' checks).
)";

const char *kEmitUsage = R"(usage: tilec emit FILE --stage=STAGE [-D NAME=VALUE]... [--kernel NAME]
                  [--target=host] [-o OUT]

STAGE is one of:
  ast       the syntax tree (no type checking)
  tile      the type-checked kernel in the tile dialect
  lowered   the target lowering (host: bufferized scalar loops; GPU: per-thread code)
  llvm      LLVM IR
  ptx       PTX (NVIDIA targets)
  amdgcn    AMDGCN assembly (AMD targets)
TARGET is host (default), sm_80, sm_89, sm_90, sm_90a, gfx90a, gfx942 or gfx950.
-D overrides a compile-time parameter (e.g. -D T=f16 -D BLOCK=2048).
--num-warps and --assume work as for `tilec compile` (GPU targets).
--kernel picks a kernel when FILE defines several. Output goes to stdout or OUT.
)";

const char *kCompileUsage = R"(usage: tilec compile FILE --target=TARGET -o OUT [-D NAME=VALUE]...
                     [--kernel NAME] [--num-warps=N] [--assume NAME=DIV]... [--time]
                     [--no-cache] [--cache-dir DIR] [--occupancy=N]
                     [--max-registers=N] [--programs-per-cta=K] [--scalarize]
                     [--code-object=5|6]

TARGET is sm_80, sm_89, sm_90 or sm_90a (OUT is PTX text) or gfx90a, gfx942 or
gfx950 (OUT is an HSA code object, e.g. OUT.hsaco; --code-object picks its
version, default 5). Writes OUT and, beside it, OUT.meta: one 'key value' line
each for kernel, target, threads, shared_bytes ('prior_grid_wait 1' after them
when the kernel calls gdc_wait(), 'programs_per_cta K' with K > 1), one
'param NAME TYPE' line
per runtime parameter, in order, and one 'tunable NAME VALUE' line per tunable
parameter with the value it was built with (after any shrink, see below).
--num-warps sets the warps per program (default 4; a warp is 32 threads on
NVIDIA, a wavefront of 64 on AMD; at most 1024 threads a program); a kernel's
`num_warps` parameter wins over it. --assume NAME=DIV
specialises the kernel on parameter NAME being divisible by DIV (a power of
two; for a pointer: its address in bytes), which lets loads and stores be
vectorised; the caller must only launch it with such arguments.
--max-registers (NVIDIA targets) caps the registers a thread may use, 16 to
255 (PTX .maxnreg; default: ptxas's choice): fewer registers let more warps
share an SM, at the price of spills to local memory.
--programs-per-cta=K (NVIDIA targets, 1 to 16; default 1) runs K programs that
follow each other along axis 1 as one CTA of K times the threads, each with its
own barriers and shared memory, so that they share an SM: threads is then the
CTA's and a launch's grid y must be a multiple of K (it runs y / K CTAs).
--scalarize runs LLVM's Scalarizer (vector operations of 32 bits and wider
split into scalars) and InstCombine before LLVM's -O pipeline: a measured
choice per kernel (it helps some and slows others).
When the kernel's shared memory (LDS) is over the target's per-workgroup limit
or the budget that leaves room for --occupancy workgroups per SM / CU (default
2), tunable parameters that -D leaves free are shrunk to fit (as `tilec
budget` shows), and a remark on stderr says which, from what to what, and why:
FILE:LINE:COL: remark: kernel 'K' needs N bytes ..., over ...; shrunk to fit:
BLOCK 8192 -> 4096 (N -> M bytes).
--time prints the compile's wall time (a cache hit included) on stderr and, for
a compile that ran, where it went: 'tilec: phases (ms): context ..., frontend
..., lowering ..., llvm-ir ..., llvm ..., other ...' (other: the disk cache and
freeing the compiler's state; GPUBinary::phaseMs says what each phase is).
)";

const char *kAotUsage = R"(usage: tilec aot FILE --target=T1,T2,... -o DIR [-D NAME=VALUE]... [--kernel NAME]
                 [--num-warps=N] [--variant NAME=DIV,NAME=DIV]...
                 [--tuned FILE] [--cache-dir DIR] [--no-cache]

Compiles the kernel for every target (sm_80, sm_89, sm_90, sm_90a: PTX; gfx90a,
gfx942, gfx950: code objects) as a generic build plus one build per --variant
(specialised on those parameters being divisible by DIV, see compile --assume),
and writes DIR/<kernel>.h and DIR/<kernel>.cpp: the images embedded as data
and a typed launcher,
tile_aot::<kernel>(grid, args..., stream), that picks the image for the device
it runs on and the most specialised variant the arguments allow. The
generated code needs only tilec's runtime/core, cuda/ and hip/ sources (no LLVM)
and the GPU driver at run time.

Tuned configurations: for a kernel with tunable parameters that -D leaves
open, the choices `tilec tune` made for these targets are embedded: those in
the disk cache (DIR as for `tilec cache`; --no-cache: none) that match this
source, its defines and --num-warps, and the lines of --tuned FILE (the lines
`tilec tune` prints: KERNEL TARGET [KEY] CONFIG; '#' starts a comment; they
take precedence). Each configuration is built besides the defaults, and the
launcher dispatches on the key arguments: a tuned key runs its configuration,
any other the defaults. A second launcher takes a grid function of the
configuration, tile_aot::<kernel>(tile::GridFn, args..., stream). It exists
too when the defaults do not fit a target's shared memory (see compile
--help): the images of the defaults are built with the values they shrink
to, which the grid function receives.
)";

const char *kTuneUsage = R"(usage: tilec tune FILE --key NAME=VALUE... --grid EXPR[,EXPR[,EXPR]]
                  [--target=auto|host|T] [-D NAME=VALUE]... [--kernel NAME] [--num-warps=N]
                  [--arg NAME=VALUE]... [--elements EXPR] [--buffer NAME=EXPR]...
                  [--repeats N] [--threads N] [--force] [--cache-dir DIR]
       tilec tune FILE --key NAME=VALUE... --config 'NAME=VALUE ...' --target=T [...]

Tunes the kernel's tunable compile-time parameters (`NAME: int = 128 in [32,
256]`, `NAME: int = 4 in {4, 8}`) that -D leaves open, for one tuning key,
ahead of time and as the runtime does on a first launch: every configuration
is compiled (in parallel, --threads), launched once and timed --repeats times
(default 10) on synthetic arguments, and the fastest is stored in the disk
cache, where tile::Runtime finds it for the same source, defines, warps,
target and key. Progress goes to stderr; stdout gets one line,
KERNEL TARGET [KEY] CONFIG, which `tilec aot --tuned` reads.

--target    auto (default): the first CUDA device, else HIP, else the host
            CPU. A GPU target that this machine has no device for falls back
            to the host CPU, with a warning (the choice is then the host's).
--key       a value for every parameter of the kernel's key(...).
--arg       a value for every other scalar parameter.
--grid      programs per axis: integer expressions (+ - * / %, cdiv(a, b),
            min, max) over the integer arguments, the -D values and the
            tunables, e.g. --grid 'cdiv(n, BLOCK)'.
--elements  elements of every pointer argument (default: the product of the
            integer key values); --buffer NAME=EXPR sizes one. Tunables take
            their largest candidate here. Floats are uniform in [-1, 1),
            integers zero.
--force     tune even when the cache holds a choice for this key.
--config    store the given configuration for --target without timing it (a
            choice made elsewhere); it must compile.
)";

const char *kSelftestUsage = R"(usage: tilec selftest [DIR] [--quick]

Type-checks every .tile file under DIR (default: kernels), then compiles the
norm kernels for the host CPU for bf16, f16 and f32 and runs them on random
inputs against float64 references (accuracy tier A), printing one row per
kernel, dtype and shape. --quick runs fewer shapes.
)";

bool readFile(const std::string &path, std::string &out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return false;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

struct CommonArgs {
  std::string file;
  std::string output;
  std::string stage;
  bool quick = false;
  bool time = false;
  bool noCache = false;
  std::string cacheDir;
  std::vector<std::string> variants;
  std::string tuned;
  tilec::TuneArgs tune;
  tile::CompileOptions options;
};

/// Parses the options shared by the commands; returns an error text.
std::string parseArgs(const std::vector<std::string> &args, bool wantStage, CommonArgs &out,
                      const std::string &command = "") {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (command == "tune") {
      bool matched = false;
      if (std::string err = parseTuneFlag(args, i, out.tune, matched); !err.empty())
        return err;
      if (matched)
        continue;
    }
    auto value = [&](const std::string &flag, std::string &dst) {
      return optionValue(args, i, flag, dst);
    };
    // An integer option in [lo, hi] (`unit` names what it counts).
    auto rangeValue = [&](const std::string &flag, long lo, long hi, const char *unit,
                          unsigned &dst) {
      std::string v;
      std::string err = value(flag, v);
      char *end = nullptr;
      long n = err.empty() ? std::strtol(v.c_str(), &end, 10) : 0;
      if (err.empty() && (!end || *end || n < lo || n > hi))
        return flag + " must be " + std::to_string(lo) + " to " + std::to_string(hi) + " " + unit +
               ", got '" + v + "'";
      if (err.empty())
        dst = unsigned(n);
      return err;
    };
    std::string err;
    if (a == "-D" || a.rfind("-D", 0) == 0) {
      std::string def = a.size() > 2 ? a.substr(2) : "";
      if (def.empty()) {
        if (i + 1 >= args.size())
          return "option '-D' needs NAME=VALUE";
        def = args[++i];
      }
      size_t eq = def.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == def.size())
        return "-D " + def + ": expected NAME=VALUE";
      out.options.defines[def.substr(0, eq)] = def.substr(eq + 1);
    } else if (a == "--kernel" || a.rfind("--kernel=", 0) == 0) {
      err = value("--kernel", out.options.kernel);
    } else if (a == "--target" || a.rfind("--target=", 0) == 0) {
      err = value("--target", out.options.target);
    } else if (wantStage && (a == "--stage" || a.rfind("--stage=", 0) == 0)) {
      err = value("--stage", out.stage);
    } else if (a == "--num-warps" || a.rfind("--num-warps=", 0) == 0) {
      std::string n;
      err = value("--num-warps", n);
      if (err.empty() && (n != "1" && n != "2" && n != "4" && n != "8" && n != "16" && n != "32"))
        err = "--num-warps must be 1, 2, 4, 8, 16 or 32, got '" + n + "'";
      else if (err.empty())
        out.options.numWarps = std::stoul(n);
    } else if (a == "--assume" || a.rfind("--assume=", 0) == 0) {
      std::string spec;
      err = value("--assume", spec);
      size_t eq = spec.find('=');
      char *end = nullptr;
      long long div = eq == std::string::npos ? 0 : std::strtoll(spec.c_str() + eq + 1, &end, 10);
      if (err.empty() && (eq == std::string::npos || !end || *end || div <= 0))
        err = "--assume " + spec + ": expected NAME=DIVISOR";
      else if (err.empty())
        out.options.divisibility[spec.substr(0, eq)] = div;
    } else if (a == "--occupancy" || a.rfind("--occupancy=", 0) == 0) {
      err = rangeValue("--occupancy", 1, 64, "workgroups per SM/CU", out.options.occupancy);
    } else if (a == "--programs-per-cta" || a.rfind("--programs-per-cta=", 0) == 0) {
      err = command == "budget"
                ? "--programs-per-cta is not a budget option: budget plans one program's shared "
                  "memory (compile checks the CTA's, K programs of it)"
                : rangeValue("--programs-per-cta", 1, 16, "programs a CTA",
                             out.options.programsPerCta);
    } else if (a == "--max-registers" || a.rfind("--max-registers=", 0) == 0) {
      err = rangeValue("--max-registers", 16, 255, "registers a thread", out.options.maxRegisters);
    } else if (command == "compile" && a == "--scalarize") {
      out.options.scalarize = true;
    } else if (a == "--code-object" || a.rfind("--code-object=", 0) == 0) {
      std::string v;
      err = value("--code-object", v);
      if (err.empty() && v != "5" && v != "6")
        err = "--code-object must be 5 or 6, got '" + v + "'";
      else if (err.empty())
        out.options.codeObjectVersion = std::stoul(v);
    } else if (wantStage && a == "-o") {
      err = value("-o", out.output);
    } else if (a == "--quick") {
      out.quick = true;
    } else if (a == "--variant" || a.rfind("--variant=", 0) == 0) {
      std::string v;
      err = value("--variant", v);
      out.variants.push_back(v);
    } else if (command == "aot" && (a == "--tuned" || a.rfind("--tuned=", 0) == 0)) {
      err = value("--tuned", out.tuned);
    } else if (a == "--no-cache") {
      out.noCache = true;
    } else if (a == "--cache-dir" || a.rfind("--cache-dir=", 0) == 0) {
      err = value("--cache-dir", out.cacheDir);
    } else if (a == "--time") {
      out.time = true;
    } else if (!a.empty() && a[0] == '-') {
      return "unknown option '" + a + "'";
    } else if (out.file.empty()) {
      out.file = a;
    } else {
      return "unexpected argument '" + a + "' (one FILE per command)";
    }
    if (!err.empty())
      return err;
  }
  return "";
}

int runCheck(const CommonArgs &args) {
  std::string source;
  if (!readFile(args.file, source))
    return usageError("cannot read '" + args.file + "' (not a readable regular file)");
  auto kernels = tile::check(source, args.file, args.options);
  if (!kernels) {
    printDiagnostics(kernels.message());
    return kCompileError;
  }
  for (auto &k : *kernels)
    fmt::print("{}: kernel '{}' ok\n", args.file, k);
  return kOk;
}

int runEmit(const CommonArgs &args) {
  tile::Phase phase;
  if (args.stage == "ast")
    phase = tile::Phase::AST;
  else if (args.stage == "tile")
    phase = tile::Phase::Tile;
  else if (args.stage == "lowered" || args.stage == "gpu")
    phase = tile::Phase::Lowered;
  else if (args.stage == "llvm")
    phase = tile::Phase::LLVM;
  else if (args.stage == "ptx" || args.stage == "amdgcn")
    phase = tile::Phase::Assembly;
  else if (args.stage.empty())
    return usageError("emit needs --stage=ast|tile|lowered|llvm|ptx|amdgcn");
  else
    return usageError("unknown stage '" + args.stage +
                      "' (expected ast, tile, lowered, llvm, ptx or amdgcn)");
  bool amd = args.options.target.rfind("gfx", 0) == 0;
  bool nvidia = args.options.target.rfind("sm_", 0) == 0;
  if ((args.stage == "ptx" && amd) || (args.stage == "amdgcn" && nvidia))
    return usageError("stage '" + args.stage + "' does not fit --target=" + args.options.target +
                      " (ptx is for NVIDIA targets, amdgcn for AMD ones)");
  std::string source;
  if (!readFile(args.file, source))
    return usageError("cannot read '" + args.file + "' (not a readable regular file)");
  auto text = tile::emit(source, args.file, args.options, phase);
  if (!text) {
    printDiagnostics(text.message());
    return kCompileError;
  }
  if (args.output.empty()) {
    fmt::print("{}", *text);
    return kOk;
  }
  std::ofstream out(args.output, std::ios::binary);
  if (!out || !(out << *text))
    return usageError("cannot write '" + args.output + "'");
  return kOk;
}

int runCompile(const CommonArgs &args) {
  if (args.output.empty())
    return usageError("compile needs -o OUT");
  if (args.options.target == "host")
    return usageError(
        "compile needs a GPU --target (sm_80, sm_89, sm_90, sm_90a, gfx90a, gfx942, gfx950)");
  std::string source;
  if (!readFile(args.file, source))
    return usageError("cannot read '" + args.file + "' (not a readable regular file)");
  tile::CompileOptions options = args.options;
  options.cubin = llvm::StringRef(args.output).ends_with(".cubin");
  auto start = std::chrono::steady_clock::now();
  // Through the disk cache (unless --no-cache), as the JIT runtime compiles.
  tile::KernelCompiler compiler =
      tile::jitCompiler(args.noCache ? "" : args.cacheDir, [](const std::string &w) {
        fmt::print(stderr, "tilec: warning: {}\n", w);
      });
  auto binary = args.noCache ? [&]() -> tile::Result<tile::KernelBinary> {
    auto gpu = tile::compileForGPU(source, args.file, options);
    if (!gpu)
      return tile::Result<tile::KernelBinary>::failure(gpu.message());
    return tile::kernelBinary(std::move(*gpu));
  }() : compiler.compile(source, args.file, options);
  if (binary)
    for (const std::string &remark : binary->remarks)
      fmt::print(stderr, "{}\n", remark);
  if (args.time) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    fmt::print(stderr, "tilec: compile {} for {}: {:.2f} ms{}\n", args.file, args.options.target,
               ms, args.noCache ? " (no cache)" : "");
    // One line, no "<number> ms" in it: scripts read the total from the line above.
    if (binary && !binary->phaseMs.empty()) {
      std::string line;
      double phases = 0;
      for (auto &[phase, phaseMs] : binary->phaseMs) {
        line += fmt::format("{} {:.2f}, ", phase, phaseMs);
        phases += phaseMs;
      }
      fmt::print(stderr, "tilec: phases (ms): {}other {:.2f}\n", line, ms - phases);
    }
  }
  if (!binary) {
    printDiagnostics(binary.message());
    return kCompileError;
  }
  std::ofstream out(args.output, std::ios::binary);
  const std::string &code = binary->image;
  if (!out || !out.write(code.data(), std::streamsize(code.size())))
    return usageError("cannot write '" + args.output + "'");
  std::ofstream meta(args.output + ".meta", std::ios::binary);
  meta << "kernel " << binary->kernel << "\ntarget " << args.options.target << "\nthreads "
       << binary->threads << "\nshared_bytes " << binary->sharedBytes << "\n";
  if (binary->waitsOnPriorGrid)
    meta << "prior_grid_wait 1\n";
  if (binary->programsPerCta > 1)
    meta << "programs_per_cta " << binary->programsPerCta << "\n";
  for (auto &p : binary->params)
    meta << "param " << p.name << " " << tile::paramTypeName(p) << "\n";
  for (auto &[name, value] : binary->config)
    meta << "tunable " << name << " " << value << "\n";
  if (!meta)
    return usageError("cannot write '" + args.output + ".meta'");
  return kOk;
}

} // namespace

int tilec::usageError(const std::string &message) {
  fmt::print(stderr, "tilec: error: {}\n", message);
  return kUsageError;
}

std::string tilec::optionValue(const std::vector<std::string> &args, size_t &i,
                               const std::string &flag, std::string &dst) {
  const std::string &a = args[i];
  if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0) {
    dst = a.substr(flag.size() + 1);
    return "";
  }
  if (i + 1 >= args.size())
    return "option '" + flag + "' needs a value";
  dst = args[++i];
  return "";
}

void tilec::printDiagnostics(const std::string &text) {
  fmt::print(stderr, "{}{}", text, !text.empty() && text.back() == '\n' ? "" : "\n");
}

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty())
    return fmt::print(stderr, "{}", kUsage), kUsageError;
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "--help" || command == "-h" || command == "help")
    return fmt::print("{}", kUsage), kOk;
  if (command == "cache")
    return runCacheCommand(args);
  const char *help = command == "check"      ? kCheckUsage
                     : command == "emit"     ? kEmitUsage
                     : command == "compile"  ? kCompileUsage
                     : command == "aot"      ? kAotUsage
                     : command == "tune"     ? kTuneUsage
                     : command == "budget"   ? kBudgetUsage
                     : command == "selftest" ? kSelftestUsage
                                             : nullptr;
  if (!help)
    return usageError("unknown command '" + command + "' (try 'tilec --help')");
  for (auto &a : args)
    if (a == "--help" || a == "-h")
      return fmt::print("{}", help), kOk;
  CommonArgs parsed;
  if (command == "tune")
    parsed.options.target = "auto";
  std::string err = parseArgs(
      args, command == "emit" || command == "compile" || command == "aot", parsed, command);
  if (!err.empty())
    return usageError(err);
  if (command == "selftest")
    return runSelftest(parsed.file.empty() ? "kernels" : parsed.file, parsed.quick);
  if (parsed.file.empty())
    return usageError(command + " needs a FILE");
  if (command == "compile")
    return runCompile(parsed);
  if (command == "budget") {
    if (parsed.options.target == "host")
      return usageError("budget needs a GPU --target (sm_80, sm_89, sm_90, sm_90a, gfx90a, "
                        "gfx942, gfx950)");
    std::string source;
    if (!readFile(parsed.file, source))
      return usageError("cannot read '" + parsed.file + "' (not a readable regular file)");
    return runBudget(parsed.file, source, parsed.options);
  }
  if (command == "tune") {
    std::string source;
    if (!readFile(parsed.file, source))
      return usageError("cannot read '" + parsed.file + "' (not a readable regular file)");
    return runTune(parsed.file, source, parsed.options, parsed.tune, parsed.cacheDir);
  }
  if (command == "aot") {
    std::string source;
    if (!readFile(parsed.file, source))
      return usageError("cannot read '" + parsed.file + "' (not a readable regular file)");
    if (parsed.output.empty())
      return usageError("aot needs -o DIR");
    std::vector<std::string> targets;
    std::stringstream ss(parsed.options.target);
    std::string t;
    while (std::getline(ss, t, ','))
      if (!t.empty())
        targets.push_back(t);
    if (targets.empty() || parsed.options.target == "host")
      return usageError("aot needs --target with GPU targets, e.g. --target=sm_80,sm_90a");
    return runAot(parsed.file, source, parsed.options, targets, parsed.variants, parsed.output,
                  {parsed.tuned, parsed.cacheDir, parsed.noCache});
  }
  return command == "check" ? runCheck(parsed) : runEmit(parsed);
}
