//===- AxisInfo.cpp - contiguity, divisibility and constancy --------------===//
#include "tile/Analysis/AxisInfo.h"

#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tileir;

namespace {
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// Largest power of two dividing `v` (capped; 0 is divisible by anything).
int64_t powerOfTwoFactor(int64_t v) {
  if (v == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(int64_t(1) << llvm::countr_zero(uint64_t(v)), kMaxDivisibility);
}

/// Runs are measured along the last dimension (the one memory is contiguous in).
int64_t numElements(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    return shaped.getRank() ? shaped.getShape().back() : 1;
  return 1;
}

/// A splat or scalar value: constant over the whole tile.
AxisInfo uniform(Value v, int64_t divisibility) {
  return {divisibility, 1, numElements(v.getType())};
}
} // namespace

AxisInfoAnalysis::AxisInfoAnalysis(Operation *funcOp) {
  auto func = cast<func::FuncOp>(funcOp);
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    int64_t div = 1;
    if (auto attr = func.getArgAttrOfType<IntegerAttr>(i, "tile.divisibility"))
      div = attr.getInt();
    info[arg] = {div, 1, 1};
  }
  func.walk<WalkOrder::PreOrder>([&](Operation *op) { visit(op); });
}

AxisInfo AxisInfoAnalysis::get(Value v) const {
  auto it = info.find(v);
  if (it != info.end())
    return it->second;
  return {1, 1, 1};
}

void AxisInfoAnalysis::visit(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    AxisInfo lb = get(forOp.getLowerBound()), step = get(forOp.getStep());
    info[forOp.getInductionVar()] = {gcd(lb.divisibility, step.divisibility), 1, 1};
    return;
  }
  if (op->getNumResults() != 1)
    return;
  Value result = op->getResult(0);
  int64_t n = numElements(result.getType());
  auto set = [&](AxisInfo a) {
    a.contiguity = std::min(a.contiguity, n);
    a.constancy = std::min(a.constancy, n);
    info[result] = a;
  };
  APInt constant;
  if (matchPattern(result, m_ConstantInt(&constant)))
    return set(uniform(result, powerOfTwoFactor(constant.getSExtValue())));
  Attribute attr;
  if (matchPattern(result, m_Constant(&attr)) &&
      (!isa<ShapedType>(result.getType()) || isa<SplatElementsAttr>(attr)))
    return set(uniform(result, 1));
  if (auto range = dyn_cast<RangeOp>(op))
    return set({powerOfTwoFactor(int32_t(range.getStart())), n, 1});
  if (isa<SplatOp>(op))
    return set(uniform(result, get(op->getOperand(0)).divisibility));
  if (isa<ConvertLayoutOp>(op))
    return set(get(op->getOperand(0)));
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    AxisInfo a = get(expand.getSrc());
    if (int32_t(expand.getAxis()) < expand.getSrc().getType().getRank())
      return set(a);
    // A new last dimension of size 1: every element is a run of its own,
    // and elements of a contiguous source differ by one.
    return set({a.contiguity > 1 ? 1 : a.divisibility, 1, 1});
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    AxisInfo a = get(broadcast.getSrc());
    if (broadcast.getSrc().getType().getShape().back() == 1)
      return set({a.divisibility, 1, n}); // the last dimension repeats one value
    return set(a);
  }
  if (auto ptrCast = dyn_cast<PtrCastOp>(op)) {
    // Byte alignment and repeats stay; runs of consecutive elements only
    // when the elements keep their size.
    AxisInfo a = get(ptrCast.getSrc());
    auto bits = [](Value v) {
      Type pointee = cast<PointerType>(getElementTypeOrSelf(v.getType())).getPointee();
      return pointee.getIntOrFloatBitWidth();
    };
    if (bits(ptrCast.getSrc()) != bits(ptrCast.getResult()))
      a.contiguity = 1;
    return set(a);
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return set(get(op->getOperand(0)));
  if (isa<arith::AddIOp, arith::SubIOp, AddPtrOp>(op)) {
    AxisInfo a = get(op->getOperand(0)), b = get(op->getOperand(1));
    int64_t scale = 1;
    if (auto addptr = dyn_cast<AddPtrOp>(op)) {
      Type pointee = cast<PointerType>(getElementTypeOrSelf(addptr.getType())).getPointee();
      scale = std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
    }
    AxisInfo r;
    r.divisibility = gcd(a.divisibility, std::min(b.divisibility * scale, kMaxDivisibility));
    r.contiguity = std::max(gcd(a.contiguity, b.constancy), gcd(b.contiguity, a.constancy));
    if (isa<arith::SubIOp>(op))
      r.contiguity = gcd(a.contiguity, b.constancy);
    r.constancy = gcd(a.constancy, b.constancy);
    return set(r);
  }
  if (isa<arith::MulIOp>(op)) {
    AxisInfo a = get(op->getOperand(0)), b = get(op->getOperand(1));
    return set({std::min(a.divisibility * b.divisibility, kMaxDivisibility), 1,
                gcd(a.constancy, b.constancy)});
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    // start + arange(0, C) < N is constant over aligned groups that divide
    // the run length, the run's start and N.
    AxisInfo a = get(cmp.getLhs()), b = get(cmp.getRhs());
    int64_t k = gcd(a.constancy, b.constancy);
    // Only `<` and `>=` switch at a multiple of the group size; `<=` and `>`
    // switch one element later.
    auto pred = cmp.getPredicate();
    bool aligned = pred == arith::CmpIPredicate::slt || pred == arith::CmpIPredicate::sge ||
                   pred == arith::CmpIPredicate::ult || pred == arith::CmpIPredicate::uge;
    if (aligned && b.constancy == n)
      k = std::max(k, gcd(gcd(a.contiguity, a.divisibility), b.divisibility));
    return set({1, 1, k});
  }
  if (isa<arith::AndIOp, arith::OrIOp>(op)) {
    AxisInfo a = get(op->getOperand(0)), b = get(op->getOperand(1));
    return set({1, 1, gcd(a.constancy, b.constancy)});
  }
  if (isa<arith::SelectOp>(op)) {
    AxisInfo a = get(op->getOperand(1)), b = get(op->getOperand(2)),
             c = get(op->getOperand(0));
    return set({gcd(a.divisibility, b.divisibility), 1,
                gcd(c.constancy, gcd(a.constancy, b.constancy))});
  }
}
