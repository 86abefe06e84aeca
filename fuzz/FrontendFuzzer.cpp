//===- FrontendFuzzer.cpp - fuzz target: .tile source to diagnostics ------===//
//
// Input: the text of a .tile file. Optionally its first line is
// `//D NAME=VALUE NAME=VALUE ...`, compile-time parameter overrides (`-D`).
//
// What must hold for every input (a violation calls abort(), which libFuzzer
// and the replay driver report as a crash; sanitizers report the rest):
//   - tile::emit(Phase::AST) either dumps the AST or fails with a
//     `fuzz.tile:LINE:COL: error:` diagnostic; when parsing fails, check fails;
//   - tile::check either accepts the kernels or fails with such a diagnostic,
//     never an internal error;
//   - every kernel check accepts is emitted at Phase::Tile (the generated
//     module verifies inside the frontend) as a func.func of that name;
//   - one input in kLoweredEvery (by its hash) is also lowered for a GPU
//     target (Phase::Lowered: layout assignment, canonicalization, shared
//     memory, the per-thread code), which succeeds or fails with such a
//     diagnostic.
// Crashes, hangs (libFuzzer -timeout), leaks and out-of-memory (-rss_limit_mb)
// are failures by themselves.
//
//===----------------------------------------------------------------------===//
#include "tile/Tile.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr const char *kFileName = "fuzz.tile";

/// Lowering costs far more than the frontend: one input in 8 keeps
/// --fuzz-ci's 30,000 frontend runs at 49 s on 2 cores (2026-12-03).
constexpr size_t kLoweredEvery = 8;

[[noreturn]] void fail(const std::string &what, const std::string &source) {
  std::fprintf(stderr, "fuzz-frontend: %s\n--- input (%zu bytes) ---\n%.2000s\n", what.c_str(),
               source.size(), source.c_str());
  std::abort();
}

/// A diagnostic is `fuzz.tile:LINE:COL: error: ...` (or `fuzz.tile: error:`
/// for file-level ones), and never an internal error.
void expectDiagnostic(const std::string &stage, const std::string &message,
                      const std::string &source) {
  bool located = message.rfind(std::string(kFileName) + ":", 0) == 0 &&
                 message.find(": error: ") != std::string::npos;
  if (!located)
    fail(stage + " failed without a file:line:col diagnostic:\n" + message, source);
  // The compiler's own errors: "internal compiler error ..." messages, and
  // diagnostics "internal error: ...". A diagnostic is a header line
  // `fuzz.tile:L:C: KIND: MESSAGE` followed by the source line and a caret
  // line, which may say anything: those two are skipped, not searched.
  if (message.rfind("internal compiler error", 0) == 0)
    fail(stage + " reported an internal error:\n" + message, source);
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < message.size();) {
    size_t end = std::min(message.find('\n', pos), message.size());
    lines.push_back(message.substr(pos, end - pos));
    pos = end + 1;
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string &line = lines[i];
    if (line.rfind(kFileName, 0) != 0)
      continue;
    size_t pos = std::strlen(kFileName);
    bool located = false;
    if (line.compare(pos, 1, ":") == 0 && pos + 1 < line.size() && std::isdigit(line[pos + 1])) {
      size_t end = line.find_first_not_of("0123456789:", pos);
      if (end == std::string::npos)
        continue;
      pos = end - 1; // the ':' before the kind
      located = true;
    }
    if (line.compare(pos, 2, ": ") != 0)
      continue;
    if (line.compare(pos + 2, 21, "error: internal error") == 0)
      fail(stage + " reported an internal error:\n" + message, source);
    if (located)
      i += 2; // the source line and the caret line
  }
}

/// `//D A=1 B=f16` on the first line: -D overrides.
std::map<std::string, std::string> definesOf(const std::string &source) {
  std::map<std::string, std::string> defines;
  if (source.rfind("//D ", 0) != 0)
    return defines;
  std::string line = source.substr(4, source.find('\n') - 4);
  size_t pos = 0;
  while (pos < line.size()) {
    size_t end = line.find(' ', pos);
    if (end == std::string::npos)
      end = line.size();
    std::string item = line.substr(pos, end - pos);
    size_t eq = item.find('=');
    if (eq != std::string::npos && eq > 0)
      defines[item.substr(0, eq)] = item.substr(eq + 1);
    pos = end + 1;
  }
  return defines;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string source(reinterpret_cast<const char *>(data), size);
  tile::CompileOptions options;
  options.defines = definesOf(source);

  auto ast = tile::emit(source, kFileName, options, tile::Phase::AST);
  if (!ast)
    expectDiagnostic("emit --stage=ast", ast.message(), source);

  auto checked = tile::check(source, kFileName, options);
  if (!checked) {
    expectDiagnostic("check", checked.message(), source);
    return 0;
  }
  if (!ast)
    fail("check accepted a file that does not parse:\n" + ast.message(), source);
  if (checked->empty())
    fail("check accepted a file without naming a kernel", source);

  for (const std::string &kernel : *checked) {
    options.kernel = kernel;
    // check gives each kernel only the -D values it declares.
    auto ir = tile::emit(source, kFileName, options, tile::Phase::Tile);
    if (!ir) {
      if (options.defines.empty())
        fail("check accepted kernel '" + kernel + "' but emit rejected it:\n" + ir.message(),
             source);
      expectDiagnostic("emit --stage=tile", ir.message(), source);
      continue;
    }
    if (ir->find("func.func @" + kernel + "(") == std::string::npos)
      fail("emit --stage=tile of kernel '" + kernel + "' has no func.func @" + kernel + ":\n" +
               *ir,
           source);
    // One input in kLoweredEvery also goes through a GPU target's lowering
    // (layouts, shared memory, the per-thread code; sm_90a and gfx942 in
    // turn), which must succeed or fail with a located diagnostic.
    size_t hash = std::hash<std::string>()(source);
    if (hash % kLoweredEvery == 0) {
      tile::CompileOptions gpu = options;
      gpu.target = hash / kLoweredEvery % 2 ? "gfx942" : "sm_90a";
      auto lowered = tile::emit(source, kFileName, gpu, tile::Phase::Lowered);
      if (!lowered)
        expectDiagnostic("emit --stage=lowered --target=" + gpu.target, lowered.message(), source);
    }
  }
  return 0;
}
