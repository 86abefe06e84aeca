//===- BudgetCommand.cpp - tilec budget: a kernel's shared memory plan ----===//
#include "Tilec.h"

#include <fmt/core.h>

int tilec::runBudget(const std::string &file, const std::string &source,
                     const tile::CompileOptions &options) {
  auto plan = tile::planSharedMemory(source, file, options);
  if (!plan) {
    printDiagnostics(plan.message());
    return kCompileError;
  }
  const char *unit = options.target.rfind("gfx", 0) == 0 ? "CU" : "SM";
  fmt::print("kernel {} on {}, {} warps per program\n", plan->kernel, plan->target,
             options.numWarps);
  fmt::print("limit      {:>8} bytes per workgroup (the most one may use)\n", plan->limit);
  fmt::print("budget     {:>8} bytes per workgroup (the limit, or 90% of the {}'s {} bytes "
             "shared by {} workgroups: {})\n",
             plan->budget, unit, plan->perCU, plan->occupancy, plan->occupancyBytes);
  for (const std::string &change : plan->changes)
    fmt::print("shrink     {}\n", change);
  fmt::print("footprint  {:>8} bytes in {} buffer{}\n", plan->footprint, plan->buffers.size(),
             plan->buffers.size() == 1 ? "" : "s");
  for (const tile::SharedBuffer &b : plan->buffers)
    fmt::print("  {:>8} bytes at offset {:>6}: {}\n", b.bytes, b.offset, b.what);
  std::string config;
  for (const auto &[name, value] : plan->defines)
    config += " -D " + name + "=" + value;
  fmt::print("decision   {}\n", plan->changes.empty()
                                    ? std::string("fits as written")
                                    : "fits with" + config);
  return kOk;
}
