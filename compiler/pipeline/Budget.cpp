//===- Budget.cpp - fit a GPU kernel's shared memory to its target --------===//
//
// The shared memory / LDS budget check (spec section 4, generalised): lay
// the kernel out and allocate its shared memory for a configuration, compare
// the footprint with the target's per-workgroup limit and with the budget
// the requested occupancy leaves a workgroup, and while it does not fit,
// halve the free tunable parameter whose halving saves the most bytes. When
// no halving alone saves any (buffers of different tunables share bytes),
// halve together those that each shrink some buffer.
//
//===----------------------------------------------------------------------===//
#include "tile/Pipeline/Pipeline.h"

#include "tile/Analysis/SharedMemory.h"
#include "tile/Dialect/TileDialect.h"
#include "tile/Target/GPUTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <optional>
#include <sstream>

using namespace tile;

namespace {

std::string locationText(mlir::Location loc) {
  if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      if (std::string text = locationText(inner); !text.empty())
        return text;
  if (auto named = mlir::dyn_cast<mlir::NameLoc>(loc))
    return locationText(named.getChildLoc());
  if (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc))
    return locationText(callSite.getCaller());
  return "";
}

std::string typeText(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto tensor = mlir::cast<mlir::RankedTensorType>(type);
  mlir::RankedTensorType::get(tensor.getShape(), tensor.getElementType()).print(os);
  return text;
}

/// One configuration laid out: its footprint and buffers, or why it failed.
struct Layout {
  int64_t footprint = 0;
  std::vector<SharedBuffer> buffers;
  std::string kernelLocation;
  std::string kernel;
  std::vector<Tunable> tunables;

  /// The sum of the buffers' sizes: bytes that buffers share count for each.
  int64_t bufferBytes() const {
    int64_t total = 0;
    for (const SharedBuffer &b : buffers)
      total += b.bytes;
    return total;
  }
};

Result<Layout> layOut(const std::string &source, const std::string &fileName,
                      const CompileOptions &options) {
  auto context = createContext();
  auto front = runFrontend(source, fileName, options, *context);
  if (!front)
    return Result<Layout>::failure(front.message());
  CompileOptions effective = options;
  if ((*front)->signature.numWarps)
    effective.numWarps = unsigned((*front)->signature.numWarps);
  mlir::ModuleOp module = *(*front)->module;
  mlir::PassManager pm(context.get());
  buildGPULayoutPipeline(pm, effective);
  if (std::string err = runPasses(pm, module); !err.empty())
    return Result<Layout>::failure(err);
  Layout layout;
  layout.kernel = (*front)->signature.name;
  layout.tunables = (*front)->signature.tunables;
  module.walk([&](mlir::func::FuncOp func) {
    if (!func->hasAttr("tile.kernel"))
      return;
    layout.kernelLocation = locationText(func.getLoc());
    layout.footprint =
        mlir::cast<mlir::IntegerAttr>(func->getAttr(mlir::tileir::kSharedBytesAttr)).getInt();
    func.walk([&](mlir::Operation *op) {
      auto offset = op->getAttrOfType<mlir::IntegerAttr>(mlir::tileir::kSharedOffsetAttr);
      if (!offset || mlir::isa<mlir::tileir::AsyncCopyOp, mlir::tileir::AsyncWaitOp,
                               mlir::tileir::StageReadOp>(op))
        return; // copies, waits and reads address their ring buffer
      std::string what;
      if (auto stages = mlir::dyn_cast<mlir::tileir::StageBufferOp>(op)) {
        auto read = llvm::find_if(op->getUsers(), [](mlir::Operation *user) {
          return mlir::isa<mlir::tileir::StageReadOp>(user);
        });
        what = std::to_string(stages.getStages()) + " stages of the " +
               typeText((*read)->getResult(0).getType()) + " load at " +
               locationText((*read)->getLoc());
      } else if (mlir::isa<mlir::tileir::DotOp>(op)) {
        what = "dot operand B " + typeText(op->getOperand(1).getType()) +
               " staged for the matrix unit at " + locationText(op->getLoc());
      } else {
        llvm::StringRef name = op->getName().getStringRef();
        what = std::string(name == "tile.reduce"   ? "reduction of "
                           : name == "tile.gather" ? "gather table "
                                                   : "layout conversion of ") +
               typeText(op->getOperand(0).getType()) + " at " + locationText(op->getLoc());
      }
      layout.buffers.push_back(
          {what, mlir::tileir::sharedScratchBytes(op), offset.getInt()});
    });
  });
  return layout;
}

std::string table(const std::vector<SharedBuffer> &buffers) {
  std::ostringstream os;
  for (const SharedBuffer &b : buffers)
    os << "\n  " << b.bytes << " bytes at offset " << b.offset << ": " << b.what;
  return os.str();
}

} // namespace

Result<SharedMemoryPlan> tile::planSharedMemory(const std::string &source,
                                                const std::string &fileName,
                                                const CompileOptions &options) {
  std::string error;
  auto target = mlir::tileir::createGPUTargetInfo(options.target, error);
  if (!target)
    return Result<SharedMemoryPlan>::failure(error);
  if (options.occupancy < 1)
    return Result<SharedMemoryPlan>::failure("--occupancy must be at least 1");
  SharedMemoryPlan plan;
  plan.target = options.target;
  plan.occupancy = options.occupancy;
  plan.perCU = target->sharedMemoryPerCU();
  plan.limit = target->sharedMemoryPerBlock();
  plan.occupancyBytes = occupancyBudget(plan.perCU, options.occupancy);
  plan.budget = std::min(plan.limit, plan.occupancyBytes);
  CompileOptions current = options;
  auto layout = layOut(source, fileName, current);
  if (!layout)
    return Result<SharedMemoryPlan>::failure(layout.message());
  const int64_t initialFootprint = layout->footprint;
  // Each tunable shrunk: its value as written and its final value, in the
  // order they were first shrunk.
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> shrunk;
  while (layout->footprint > plan.budget) {
    // A step: the tunables it halves (name, new value) and its layout.
    using Halving = std::vector<std::pair<std::string, std::string>>;
    std::optional<std::pair<Halving, Layout>> best;
    // The halvings that shrink some buffer but not the footprint.
    Halving sharing;
    for (const Tunable &t : layout->tunables) {
      if (options.defines.count(t.name))
        continue; // fixed by the caller
      int64_t value = 0, smallest = INT64_MAX;
      if (!llvm::to_integer(t.value, value) || value < 2)
        continue;
      for (const std::string &c : t.candidates)
        if (int64_t v; llvm::to_integer(c, v))
          smallest = std::min(smallest, v);
      if (value / 2 < smallest)
        continue;
      CompileOptions trial = current;
      std::string half = std::to_string(value / 2);
      trial.defines[t.name] = half;
      auto candidate = layOut(source, fileName, trial);
      if (!candidate)
        continue;
      if (candidate->footprint >= layout->footprint) {
        if (candidate->bufferBytes() < layout->bufferBytes())
          sharing.push_back({t.name, half});
        continue;
      }
      if (!best || candidate->footprint < best->second.footprint)
        best = {{{t.name, half}}, std::move(*candidate)};
    }
    // Buffers with disjoint lifetimes share bytes: halving one alone leaves
    // the other as large. Halve them together.
    if (!best && sharing.size() > 1) {
      CompileOptions trial = current;
      for (const auto &[name, half] : sharing)
        trial.defines[name] = half;
      auto candidate = layOut(source, fileName, trial);
      if (candidate && candidate->footprint < layout->footprint)
        best = {sharing, std::move(*candidate)};
    }
    if (!best) {
      std::ostringstream os;
      os << layout->kernelLocation << ": error: kernel '" << layout->kernel << "' needs "
         << layout->footprint << " bytes of shared memory but " << options.target << " allows "
         << plan.budget << " per workgroup (" << plan.occupancy << " workgroups per "
         << (target->warpSize() == 64 ? "CU" : "SM") << ": 90% of " << plan.perCU
         << " bytes divided among them; hardware limit " << plan.limit
         << " bytes) and no free tunable parameter can shrink it; its buffers:"
         << table(layout->buffers);
      return Result<SharedMemoryPlan>::failure(os.str());
    }
    std::string change;
    for (const auto &[name, half] : best->first) {
      std::string from;
      for (const Tunable &t : layout->tunables)
        if (t.name == name)
          from = t.value;
      change += (change.empty() ? "" : ", ") + name + ": " + from + " -> " + half;
      auto it = std::find_if(shrunk.begin(), shrunk.end(),
                             [&](const auto &s) { return s.first == name; });
      if (it == shrunk.end())
        shrunk.push_back({name, {from, half}});
      else
        it->second.second = half;
      current.defines[name] = half;
      plan.defines[name] = half;
    }
    plan.changes.push_back(change + " (" + std::to_string(layout->footprint) + " -> " +
                           std::to_string(best->second.footprint) + " bytes)");
    layout = std::move(best->second);
  }
  plan.kernel = layout->kernel;
  plan.footprint = layout->footprint;
  plan.buffers = layout->buffers;
  if (shrunk.empty())
    return plan;
  // The remark every compile that applies this plan reports: what forced the
  // change (the hardware limit, the occupancy budget, or both) and what changed.
  bool amd = target->warpSize() == 64;
  std::ostringstream os;
  os << layout->kernelLocation << ": remark: kernel '" << plan.kernel << "' needs "
     << initialFootprint << " bytes of " << (amd ? "LDS" : "shared memory") << " on "
     << plan.target << ", over ";
  if (initialFootprint > plan.limit)
    os << "the hardware limit of " << plan.limit << " bytes per workgroup ("
       << (amd ? "the CU's LDS" : "with the dynamic shared memory opt-in") << ")"
       << (initialFootprint > plan.occupancyBytes ? " and " : "");
  if (initialFootprint > plan.occupancyBytes)
    os << "the occupancy budget of " << plan.occupancyBytes << " bytes (" << plan.occupancy
       << " workgroup" << (plan.occupancy == 1 ? "" : "s") << " per " << (amd ? "CU" : "SM")
       << ": 90% of " << plan.perCU << " bytes divided among them)";
  os << "; shrunk to fit:";
  for (size_t i = 0; i < shrunk.size(); ++i)
    os << (i ? ", " : " ") << shrunk[i].first << " " << shrunk[i].second.first << " -> "
       << shrunk[i].second.second;
  os << " (" << initialFootprint << " -> " << plan.footprint << " bytes)";
  plan.remark = os.str();
  return plan;
}
