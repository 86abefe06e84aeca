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
  selftest [DIR]      check every .tile under DIR (default: kernels) and run the
                      norm kernels on the host CPU against their references
  cache info|list|clear
                      show or empty the disk cache of compiled kernels

Run 'tilec <command> --help' for the options of a command.

exit codes: 0 success, 1 the source has errors, 2 bad command line or
unreadable file, 3 a selftest check failed
)";

const char *kCheckUsage = R"(usage: tilec check FILE [-D NAME=VALUE]... [--kernel NAME]

Parses FILE and type-checks each kernel (or only --kernel NAME), instantiated
with its default compile-time parameters overridden by -D. Prints the checked
kernels; errors go to stderr as file:line:col with the source line and a caret.
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
                     [--no-cache] [--cache-dir DIR]
                     [--code-object=5|6]

TARGET is sm_80, sm_89, sm_90 or sm_90a (OUT is PTX text) or gfx90a, gfx942 or
gfx950 (OUT is an HSA code object, e.g. OUT.hsaco; --code-object picks its
version, default 5). Writes OUT and, beside it, OUT.meta: one 'key value' line
each for kernel, target, threads, shared_bytes and one 'param NAME TYPE' line
per runtime parameter, in order.
--num-warps sets the warps per program (default 4; a warp is 32 threads on
NVIDIA, a wavefront of 64 on AMD). --assume NAME=DIV
specialises the kernel on parameter NAME being divisible by DIV (a power of
two; for a pointer: its address in bytes), which lets loads and stores be
vectorised; the caller must only launch it with such arguments.
)";

const char *kAotUsage = R"(usage: tilec aot FILE --target=T1,T2,... -o DIR [-D NAME=VALUE]... [--kernel NAME]
                 [--num-warps=N] [--variant NAME=DIV,NAME=DIV]...

Compiles the kernel for every target (sm_80, sm_89, sm_90, sm_90a) as a generic
build plus one build per --variant (specialised on those parameters being
divisible by DIV, see compile --assume), and writes DIR/<kernel>.h and
DIR/<kernel>.cpp: the images embedded as data and a typed launcher,
tile_aot::<kernel>(grid, args..., stream), that picks the image for the device
it runs on and the most specialised variant the arguments allow. The
generated code needs only tilec's runtime/core, cuda/ and hip/ sources (no LLVM)
and the GPU driver at run time.
)";

const char *kSelftestUsage = R"(usage: tilec selftest [DIR] [--quick]

Type-checks every .tile file under DIR (default: kernels), then compiles the
norm kernels for the host CPU for bf16, f16 and f32 and runs them on random
inputs against float64 references (accuracy tier A), printing one row per
kernel, dtype and shape. --quick runs fewer shapes.
)";

int usageError(const std::string &message) {
  fmt::print(stderr, "tilec: error: {}\n", message);
  return kUsageError;
}

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
  tile::CompileOptions options;
};

/// Parses the options shared by the commands; returns an error text.
std::string parseArgs(const std::vector<std::string> &args, bool wantStage, CommonArgs &out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](const std::string &flag, std::string &dst) -> std::string {
      if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0) {
        dst = a.substr(flag.size() + 1);
        return "";
      }
      if (i + 1 >= args.size())
        return "option '" + flag + "' needs a value";
      dst = args[++i];
      return "";
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
  else if (args.stage == "lowered")
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

const char *kindName(tile::ScalarKind k) {
  static const char *names[] = {"f32", "f16", "bf16", "f8e4m3", "f8e5m2", "bool",
                                "i8",  "u8",  "i16",  "i32",    "i64"};
  return names[int(k)];
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
    tile::KernelBinary b;
    b.kernel = gpu->kernel;
    b.params = gpu->params;
    b.image = gpu->binary.empty() ? gpu->ptx : gpu->binary;
    b.threads = gpu->threads;
    b.sharedBytes = gpu->sharedBytes;
    return b;
  }() : compiler.compile(source, args.file, options);
  if (args.time)
    fmt::print(stderr, "tilec: compile {} for {}: {:.2f} ms{}\n", args.file, args.options.target,
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count(),
               args.noCache ? " (no cache)" : "");
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
  for (auto &p : binary->params)
    meta << "param " << p.name << " " << (p.isPointer ? "ptr<" : "") << kindName(p.kind)
         << (p.isPointer ? ">" : "") << "\n";
  if (!meta)
    return usageError("cannot write '" + args.output + ".meta'");
  return kOk;
}

} // namespace

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
                     : command == "selftest" ? kSelftestUsage
                                             : nullptr;
  if (!help)
    return usageError("unknown command '" + command + "' (try 'tilec --help')");
  for (auto &a : args)
    if (a == "--help" || a == "-h")
      return fmt::print("{}", help), kOk;
  CommonArgs parsed;
  std::string err =
      parseArgs(args, command == "emit" || command == "compile" || command == "aot", parsed);
  if (!err.empty())
    return usageError(err);
  if (command == "selftest")
    return runSelftest(parsed.file.empty() ? "kernels" : parsed.file, parsed.quick);
  if (parsed.file.empty())
    return usageError(command + " needs a FILE");
  if (command == "compile")
    return runCompile(parsed);
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
    return runAot(parsed.file, source, parsed.options, targets, parsed.variants, parsed.output);
  }
  return command == "check" ? runCheck(parsed) : runEmit(parsed);
}
