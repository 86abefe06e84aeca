//===- TuneCommand.cpp - tilec tune: autotune a kernel ahead of time ------===//
//
// Tunes a kernel's tunable compile-time parameters for one tuning key on the
// device this machine has (CUDA, then HIP, else the host CPU), through the
// same path as the Runtime's first launch (tile::Runtime::launch): every
// configuration compiled in parallel, each timed on synthetic arguments, the
// fastest stored in the disk cache under the key the Runtime looks up. Prints
// the choice as one line of a tuned-configs file, which `tilec aot --tuned`
// reads:
//
//   KERNEL TARGET [KEY] CONFIG        e.g.  scale sm_90a [n=4096] BLOCK=256 num_warps=4
//
//===----------------------------------------------------------------------===//
#include "Tilec.h"

#include "tile/DiskCache.h"
#include "tile/Runtime.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <unistd.h>

using namespace tilec;

namespace {

//===----------------------------------------------------------------------===//
// Integer expressions for --grid, --elements and --buffer
//===----------------------------------------------------------------------===//

using Env = std::map<std::string, int64_t>;

/// Evaluates `text`: integers, names from `env`, + - * / % and parentheses,
/// unary minus, cdiv(a, b), min(a, b), max(a, b). Sets `error` on failure.
class ExprEval {
public:
  ExprEval(const std::string &text, const Env &env) : s(text), env(env) {}

  std::optional<int64_t> run(std::string &error) {
    int64_t v = expr();
    skip();
    if (err.empty() && pos != s.size())
      err = "unexpected '" + s.substr(pos, 1) + "'";
    if (!err.empty()) {
      error = "'" + s + "': " + err;
      return std::nullopt;
    }
    return v;
  }

private:
  const std::string &s;
  const Env &env;
  size_t pos = 0;
  std::string err;

  void skip() {
    while (pos < s.size() && std::isspace((unsigned char)s[pos]))
      ++pos;
  }
  bool eat(char c) {
    skip();
    if (pos < s.size() && s[pos] == c)
      return ++pos, true;
    return false;
  }
  int64_t fail(const std::string &message) {
    if (err.empty())
      err = message;
    return 0;
  }
  int64_t apply(char op, int64_t a, int64_t b) {
    int64_t r = 0;
    switch (op) {
    case '+':
      if (__builtin_add_overflow(a, b, &r))
        return fail("overflow");
      return r;
    case '-':
      if (__builtin_sub_overflow(a, b, &r))
        return fail("overflow");
      return r;
    case '*':
      if (__builtin_mul_overflow(a, b, &r))
        return fail("overflow");
      return r;
    default:
      if (b == 0)
        return fail("division by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1)
        return fail("overflow");
      return op == '/' ? a / b : a % b;
    }
  }
  int64_t expr() {
    int64_t v = term();
    for (;;) {
      if (eat('+'))
        v = apply('+', v, term());
      else if (eat('-'))
        v = apply('-', v, term());
      else
        return v;
    }
  }
  int64_t term() {
    int64_t v = factor();
    for (;;) {
      if (eat('*'))
        v = apply('*', v, factor());
      else if (eat('/'))
        v = apply('/', v, factor());
      else if (eat('%'))
        v = apply('%', v, factor());
      else
        return v;
    }
  }
  int64_t factor() {
    if (!err.empty())
      return 0;
    skip();
    if (eat('-'))
      return apply('-', 0, factor());
    if (eat('(')) {
      int64_t v = expr();
      if (!eat(')'))
        return fail("missing ')'");
      return v;
    }
    if (pos < s.size() && std::isdigit((unsigned char)s[pos])) {
      size_t start = pos;
      while (pos < s.size() && std::isdigit((unsigned char)s[pos]))
        ++pos;
      errno = 0;
      long long v = std::strtoll(s.substr(start, pos - start).c_str(), nullptr, 10);
      if (errno)
        return fail("number out of range");
      return v;
    }
    if (pos < s.size() && (std::isalpha((unsigned char)s[pos]) || s[pos] == '_')) {
      size_t start = pos;
      while (pos < s.size() && (std::isalnum((unsigned char)s[pos]) || s[pos] == '_'))
        ++pos;
      std::string name = s.substr(start, pos - start);
      if (name == "cdiv" || name == "min" || name == "max") {
        if (!eat('('))
          return fail(name + " takes two arguments: " + name + "(a, b)");
        int64_t a = expr();
        if (!eat(','))
          return fail(name + " takes two arguments: " + name + "(a, b)");
        int64_t b = expr();
        if (!eat(')'))
          return fail("missing ')'");
        if (name == "min")
          return std::min(a, b);
        if (name == "max")
          return std::max(a, b);
        if (b <= 0)
          return fail("cdiv by " + std::to_string(b));
        return apply('+', a, b - 1) / b;
      }
      auto it = env.find(name);
      if (it == env.end())
        return fail("unknown name '" + name + "' (integer arguments, defines and tunables "
                    "are known)");
      return it->second;
    }
    return fail(pos < s.size() ? "unexpected '" + s.substr(pos, 1) + "'"
                               : "expression ends early");
  }
};

/// Splits "cdiv(n, B), 4" at the commas outside parentheses.
std::vector<std::string> splitTop(const std::string &text) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (char c : text) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

/// The grid `text` gives in `env`; empty and `error` set on failure.
std::optional<std::array<uint32_t, 3>> evalGrid(const std::string &text, const Env &env,
                                               std::string &error) {
  std::vector<std::string> dims = splitTop(text);
  if (dims.size() > 3) {
    error = "'" + text + "': a grid has at most 3 dimensions";
    return std::nullopt;
  }
  std::array<uint32_t, 3> grid = {1, 1, 1};
  for (size_t i = 0; i < dims.size(); ++i) {
    auto v = ExprEval(dims[i], env).run(error);
    if (!v)
      return std::nullopt;
    if (*v < 1 || *v > int64_t(UINT32_MAX)) {
      error = "'" + text + "': grid dimension " + std::to_string(i) + " is " +
              std::to_string(*v);
      return std::nullopt;
    }
    grid[i] = uint32_t(*v);
  }
  return grid;
}

//===----------------------------------------------------------------------===//
// Synthetic arguments
//===----------------------------------------------------------------------===//

size_t elementBytes(tile::ScalarKind k) {
  switch (k) {
  case tile::ScalarKind::F32:
  case tile::ScalarKind::I32:
    return 4;
  case tile::ScalarKind::F16:
  case tile::ScalarKind::BF16:
  case tile::ScalarKind::I16:
    return 2;
  case tile::ScalarKind::I64:
    return 8;
  default:
    return 1;
  }
}

uint16_t toHalf(float f) {
  // Values in [-1, 1): normal or zero halves, round to nearest by truncation
  // of a pre-rounded mantissa is not needed for synthetic data.
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int exp = int((bits >> 23) & 0xff) - 127 + 15;
  if (exp <= 0)
    return uint16_t(sign);
  return uint16_t(sign | (uint32_t(exp) << 10) | ((bits >> 13) & 0x3ffu));
}

/// Random contents for a buffer: floats uniform in [-1, 1), fp8 values of
/// magnitude below 2, integers and booleans zero (safe as indices).
std::string fillBuffer(tile::ScalarKind kind, size_t elements, std::mt19937_64 &rng) {
  std::string bytes(elements * elementBytes(kind), '\0');
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (size_t i = 0; i < elements; ++i) {
    float f = uniform(rng);
    char *p = bytes.data() + i * elementBytes(kind);
    switch (kind) {
    case tile::ScalarKind::F32:
      std::memcpy(p, &f, 4);
      break;
    case tile::ScalarKind::F16: {
      uint16_t h = toHalf(f);
      std::memcpy(p, &h, 2);
      break;
    }
    case tile::ScalarKind::BF16: {
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t h = uint16_t(bits >> 16);
      std::memcpy(p, &h, 2);
      break;
    }
    case tile::ScalarKind::F8E4M3:
    case tile::ScalarKind::F8E5M2:
      // Bytes 0x00-0x3f and 0x80-0xbf are finite in every fp8 format.
      *p = char((rng() & 0x3f) | (rng() & 0x80));
      break;
    default:
      break;
    }
  }
  return bytes;
}

bool parseInt(const std::string &text, int64_t &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno || *end)
    return false;
  out = v;
  return true;
}

bool parseFloat(const std::string &text, double &out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (errno || *end || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

bool isFloat(tile::ScalarKind k) {
  return k == tile::ScalarKind::F32 || k == tile::ScalarKind::F16 ||
         k == tile::ScalarKind::BF16 || k == tile::ScalarKind::F8E4M3 ||
         k == tile::ScalarKind::F8E5M2;
}

std::string describeTunables(const std::vector<tile::Tunable> &tuned) {
  std::string text;
  for (const tile::Tunable &t : tuned) {
    text += (text.empty() ? "" : ", ") + t.name + " in {";
    for (size_t i = 0; i < t.candidates.size(); ++i)
      text += (i ? ", " : "") + t.candidates[i];
    text += "}";
  }
  return text;
}

/// Prints the Runtime's tuning progress on stderr: on a terminal the
/// "k/n configs compiled" count rewrites one line, elsewhere one line each.
class Progress {
public:
  Progress() : tty(isatty(2) != 0) {}
  void operator()(const std::string &line) {
    bool counting = line.find(" configs compiled") != std::string::npos;
    if (tty && counting) {
      fmt::print(stderr, "\r{}\33[K", line);
      open = true;
      return;
    }
    fmt::print(stderr, "{}{}\n", open ? "\r\33[K" : "", line);
    open = false;
  }
  ~Progress() {
    if (open)
      fmt::print(stderr, "\n");
  }

private:
  bool tty;
  bool open = false;
};

} // namespace

std::string tilec::parseTuneFlag(const std::vector<std::string> &args, size_t &i,
                                 TuneArgs &out, bool &matched) {
  const std::string &a = args[i];
  matched = true;
  auto value = [&](const std::string &flag, std::string &dst) {
    return optionValue(args, i, flag, dst);
  };
  auto flagIs = [&](const char *flag) {
    return a == flag || a.rfind(std::string(flag) + "=", 0) == 0;
  };
  auto pair = [&](const char *flag, std::vector<std::pair<std::string, std::string>> &dst) {
    std::string v;
    if (std::string err = value(flag, v); !err.empty())
      return err;
    size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
      return std::string(flag) + " " + v + ": expected NAME=VALUE";
    dst.push_back({v.substr(0, eq), v.substr(eq + 1)});
    return std::string();
  };
  auto count = [&](const char *flag, unsigned lo, unsigned hi, unsigned &dst) {
    std::string v;
    if (std::string err = value(flag, v); !err.empty())
      return err;
    int64_t n = 0;
    if (!parseInt(v, n) || n < lo || n > hi)
      return std::string(flag) + " must be a number from " + std::to_string(lo) + " to " +
             std::to_string(hi) + ", got '" + v + "'";
    dst = unsigned(n);
    return std::string();
  };
  if (flagIs("--key"))
    return pair("--key", out.keys);
  if (flagIs("--arg"))
    return pair("--arg", out.args);
  if (flagIs("--buffer"))
    return pair("--buffer", out.buffers);
  if (flagIs("--grid"))
    return value("--grid", out.grid);
  if (flagIs("--elements"))
    return value("--elements", out.elements);
  if (flagIs("--config"))
    return value("--config", out.config);
  if (flagIs("--repeats"))
    return count("--repeats", 1, 1000, out.repeats);
  if (flagIs("--threads"))
    return count("--threads", 1, 256, out.threads);
  if (a == "--force") {
    out.force = true;
    return "";
  }
  matched = false;
  return "";
}

int tilec::runTune(const std::string &file, const std::string &source,
                   tile::CompileOptions options, const TuneArgs &t, const std::string &cacheDir) {
  auto warn = [](const std::string &w) { fmt::print(stderr, "tilec: warning: {}\n", w); };
  tile::KernelCompiler compiler = tile::jitCompiler(cacheDir, warn);
  // --force: tune again even when the cache holds a choice (and replace it).
  if (t.force)
    compiler.lookupTuning = nullptr;

  // The device: the one asked for, else the first found; without it the
  // host CPU (with a warning when a GPU target was asked for).
  std::string want = options.target;
  static const char *gpuTargets[] = {"sm_80",  "sm_89",  "sm_90", "sm_90a",
                                     "gfx90a", "gfx942", "gfx950"};
  bool gpuTarget = std::find(std::begin(gpuTargets), std::end(gpuTargets), want) !=
                   std::end(gpuTargets);
  if (want != "auto" && want != "host" && !gpuTarget)
    return usageError("unknown target '" + want +
                      "' (expected host, sm_80, sm_89, sm_90, sm_90a, gfx90a, gfx942 or gfx950)");
  std::unique_ptr<tile::Runtime> rt;
  std::string target = want;
  bool storeOnly = !t.config.empty();
  if (!storeOnly || want == "auto") {
    tile::RuntimeOptions ro;
    ro.backend = want == "auto"   ? "auto"
                 : want == "host" ? "host"
                 : want[0] == 's' ? "cuda"
                                  : "hip";
    ro.tuneRepeats = t.repeats;
    ro.tuneThreads = t.threads;
    auto created = tile::Runtime::create(ro, compiler);
    std::string why;
    if (!created) {
      why = created.message(); // "no cuda device: CUDA: ...": keep what was tried
      size_t colon = why.find(" device: ");
      if (why.rfind("no ", 0) == 0 && colon != std::string::npos)
        why = why.substr(colon + 9);
    } else if (gpuTarget && (*created)->target() != want) {
      why = "the device found is " + (*created)->deviceName() + " (" + (*created)->target() + ")";
    }
    if (!why.empty() && !storeOnly) {
      fmt::print(stderr, "tilec: warning: no {} device here ({}): tuning for the host CPU\n",
                 want, why);
      ro.backend = "host";
      created = tile::Runtime::create(ro, compiler);
    }
    if (!created)
      return usageError(created.message());
    rt = std::move(*created);
    target = rt->target();
  }
  options.target = target;

  auto sig = compiler.signature(source, file, options);
  if (!sig) {
    printDiagnostics(sig.message());
    return kCompileError;
  }
  std::vector<tile::Tunable> tuned = tile::tunedParameters(sig->tunables, options.defines);
  if (tuned.empty())
    return usageError(
        "kernel '" + sig->kernel + "' has nothing to tune: it declares no tunable parameter" +
        (sig->tunables.empty() ? "" : " that -D leaves open") +
        " (declare one as `NAME: int = 128 in [32, 256]` or `NAME: int = 4 in {4, 8}`)");

  // Arguments: key values, other scalars, buffers.
  const std::vector<tile::ParamInfo> &params = sig->params;
  auto paramIndex = [&](const std::string &name) -> std::optional<size_t> {
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].name == name)
        return i;
    return std::nullopt;
  };
  std::vector<std::optional<tile::Arg>> values(params.size());
  Env env;
  for (auto &[name, value] : options.defines) {
    int64_t v = 0;
    if (parseInt(value, v))
      env[name] = v;
  }
  std::vector<size_t> keyArgs;
  for (const std::string &name : sig->tuneKey) {
    auto index = paramIndex(name);
    if (!index)
      return usageError("tuning key '" + name + "' is not a parameter of '" + sig->kernel + "'");
    keyArgs.push_back(*index);
  }
  auto setScalar = [&](const std::string &flag, const std::string &name,
                       const std::string &text) -> std::string {
    auto index = paramIndex(name);
    if (!index)
      return flag + " " + name + "=" + text + ": kernel '" + sig->kernel +
             "' has no parameter '" + name + "'";
    const tile::ParamInfo &p = params[*index];
    if (p.isPointer)
      return flag + " " + name + "=" + text + ": '" + name +
             "' is a pointer (size its buffer with --buffer or --elements)";
    if (values[*index])
      return "parameter '" + name + "' is given twice";
    if (isFloat(p.kind)) {
      double f = 0;
      if (!parseFloat(text, f))
        return flag + " " + name + "=" + text + ": expected a number";
      values[*index] = tile::Arg::real(f);
      return "";
    }
    int64_t v = 0;
    if (!parseInt(text, v))
      return flag + " " + name + "=" + text + ": expected an integer";
    values[*index] = tile::Arg::integer(v);
    env[name] = v;
    return "";
  };
  std::string keyNames;
  for (const std::string &name : sig->tuneKey)
    keyNames += (keyNames.empty() ? "" : ", ") + name;
  for (auto &[name, text] : t.keys) {
    if (std::find(sig->tuneKey.begin(), sig->tuneKey.end(), name) == sig->tuneKey.end())
      return usageError("--key " + name + "=" + text + ": '" + name + "' is not in the key of '" +
                        sig->kernel + "' (" +
                        (keyNames.empty() ? "it has no key(...)" : "key(" + keyNames + ")") +
                        "); give other arguments with --arg");
    if (std::string err = setScalar("--key", name, text); !err.empty())
      return usageError(err);
  }
  for (size_t index : keyArgs)
    if (!values[index])
      return usageError("tune needs --key " + params[index].name + "=VALUE (the key of '" +
                        sig->kernel + "' is key(" + keyNames + "))");
  std::vector<tile::Arg> keyOnly(params.size(), tile::Arg::integer(0));
  for (size_t index : keyArgs)
    keyOnly[index] = *values[index];
  std::string keyText = tile::tuningKeyText(params, keyArgs, keyOnly);
  auto line = [&](const std::string &config) {
    fmt::print("{} {} [{}] {}\n", sig->kernel, target, keyText, config);
  };
  auto parts = tile::tuningParts(target, sig->kernel, source, options, tuned, keyText);

  if (storeOnly) {
    tile::TuneConfig config;
    if (!tile::parseConfig(t.config, tuned, config))
      return usageError("--config '" + t.config + "' must give one candidate of every tuned "
                        "parameter: " + describeTunables(tuned));
    // It must compile: a configuration that does not would fail every launch.
    tile::CompileOptions o = options;
    for (auto &[name, value] : config)
      o.defines[name] = value;
    auto binary = compiler.compile(source, file, o);
    if (!binary) {
      printDiagnostics(binary.message());
      return kCompileError;
    }
    std::string text = tile::configText(tuned, config);
    compiler.storeTuning(parts, text);
    fmt::print(stderr, "tilec: stored {} for {} [{}] on {} (not timed)\n", text, sig->kernel,
               keyText, target);
    line(text);
    return kOk;
  }

  for (auto &[name, text] : t.args) {
    if (std::find(sig->tuneKey.begin(), sig->tuneKey.end(), name) != sig->tuneKey.end())
      return usageError("--arg " + name + "=" + text + ": '" + name +
                        "' is a key parameter; give it with --key");
    if (std::string err = setScalar("--arg", name, text); !err.empty())
      return usageError(err);
  }
  for (size_t i = 0; i < params.size(); ++i)
    if (!params[i].isPointer && !values[i])
      return usageError("tune needs a value for parameter '" + params[i].name +
                        "' (--arg " + params[i].name + "=VALUE)");
  if (t.grid.empty())
    return usageError("tune needs --grid: programs per axis as expressions over the integer "
                      "arguments, defines and tunables, e.g. --grid 'cdiv(n, BLOCK)'");

  // Buffer sizes are evaluated with every tunable at its largest candidate;
  // the grid once with the defaults, to report mistakes before compiling.
  Env sizeEnv = env;
  Env gridEnv = env;
  for (const tile::Tunable &tn : sig->tunables) {
    int64_t v = 0, largest = std::numeric_limits<int64_t>::min();
    for (const std::string &c : tn.candidates)
      if (parseInt(c, v))
        largest = std::max(largest, v);
    if (parseInt(tn.value, v))
      gridEnv[tn.name] = v;
    if (largest != std::numeric_limits<int64_t>::min() && !options.defines.count(tn.name))
      sizeEnv[tn.name] = largest;
    else if (parseInt(tn.value, v))
      sizeEnv[tn.name] = v;
  }
  std::string error;
  if (!evalGrid(t.grid, gridEnv, error))
    return usageError("--grid " + error);
  std::string defaultElements = "1";
  for (size_t index : keyArgs)
    if (!isFloat(params[index].kind))
      defaultElements += "*" + params[index].name;
  std::map<std::string, std::string> sizes;
  for (auto &[name, expr] : t.buffers) {
    auto index = paramIndex(name);
    if (!index || !params[*index].isPointer)
      return usageError("--buffer " + name + "=" + expr + ": '" + name +
                        "' is not a pointer parameter of '" + sig->kernel + "'");
    sizes[name] = expr;
  }
  std::mt19937_64 rng(20261130);
  std::vector<void *> buffers;
  auto freeAll = [&] {
    for (void *b : buffers)
      rt->free(b);
  };
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].isPointer)
      continue;
    std::string expr = sizes.count(params[i].name) ? sizes[params[i].name]
                       : !t.elements.empty()       ? t.elements
                                                   : defaultElements;
    auto n = ExprEval(expr, sizeEnv).run(error);
    if (!n || *n < 1) {
      freeAll();
      return usageError("size of buffer '" + params[i].name + "': " +
                        (n ? "'" + expr + "' is " + std::to_string(*n) + " elements" : error));
    }
    std::string bytes = fillBuffer(params[i].kind, size_t(*n), rng);
    void *p = nullptr;
    std::string err = rt->alloc(bytes.size(), &p);
    if (err.empty())
      buffers.push_back(p), err = rt->copyToDevice(p, bytes.data(), bytes.size());
    if (!err.empty()) {
      freeAll();
      fmt::print(stderr, "tilec: error: buffer '{}' ({} bytes): {}\n", params[i].name,
                 bytes.size(), err);
      return kCompileError;
    }
    values[i] = tile::Arg::pointer(p);
  }
  std::vector<tile::Arg> args;
  for (auto &v : values)
    args.push_back(*v);

  auto progress = std::make_shared<Progress>();
  rt->setTuneProgress([progress](const std::string &l) { (*progress)(l); });
  auto kernel = rt->loadSource(source, file, options);
  if (!kernel) {
    freeAll();
    printDiagnostics(kernel.message());
    return kCompileError;
  }
  std::string gridText = t.grid;
  tile::GridFn grid = [gridText, env](const tile::TuneConfig &config) {
    Env e = env;
    for (auto &[name, value] : config) {
      int64_t v = 0;
      if (parseInt(value, v))
        e[name] = v;
    }
    std::string error;
    auto g = evalGrid(gridText, e, error);
    return g ? *g : std::array<uint32_t, 3>{0, 0, 0};
  };
  fmt::print(stderr, "tilec: tuning {} [{}] on {} ({}): {}\n", sig->kernel, keyText,
             rt->deviceName(), rt->target(), describeTunables(tuned));
  std::string err = rt->launch(*kernel, grid, args);
  if (err.empty())
    err = rt->synchronize();
  progress.reset();
  freeAll();
  if (!err.empty()) {
    printDiagnostics("tilec: error: tuning failed: " + err);
    return kCompileError;
  }
  auto chosen = (*kernel)->tunedConfigs();
  if (chosen.size() != 1) {
    fmt::print(stderr, "tilec: error: tuning chose no configuration\n");
    return kCompileError;
  }
  std::string text = tile::configText(tuned, chosen.begin()->second);
  tile::DiskCache::Info info =
      tile::DiskCache::open(cacheDir, tile::compilerBuildId(), 0, warn).info();
  fmt::print(stderr, "tilec: {} [{}] on {}: {} ({})\n", sig->kernel, keyText, target, text,
             info.writable ? "in the cache at " + info.dir
                           : "the cache is not writable: kept for this process only");
  line(text);
  return kOk;
}
