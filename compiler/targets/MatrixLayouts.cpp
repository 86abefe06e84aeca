//===- MatrixLayouts.cpp - dot's layouts from a matrix instruction's fragments ===//
#include "MatrixLayouts.h"

using namespace mlir;
using namespace mlir::tileir;

namespace {

/// Builds one operand's layout; `rows` and `cols` are the operand's shape.
struct OperandBuilder {
  int64_t logRows, logCols;
  SmallVector<int64_t> reg, lane, warp;

  int64_t index(bool row, int64_t bit) const { return row ? logCols + bit : bit; }
  void fragment(const Fragment &f) {
    for (FragmentBit b : f.reg)
      reg.push_back(index(b.row, b.bit));
    for (FragmentBit b : f.lane)
      lane.push_back(index(b.row, b.bit));
  }
  /// Index bits [from, to) of the rows or columns.
  static void bits(SmallVector<int64_t> &list, int64_t from, int64_t to, int64_t offset) {
    for (int64_t b = from; b < to; ++b)
      list.push_back(offset + b);
  }
  void regs(bool row, int64_t from) { bits(reg, from, row ? logRows : logCols, row ? logCols : 0); }
  void warps(bool row, int64_t from, int64_t count) {
    bits(warp, from, from + count, row ? logCols : 0);
  }
  void copies(int64_t count) { warp.append(count, -1); }
  DistributedLayoutAttr get(MLIRContext *ctx) const {
    return DistributedLayoutAttr::get(ctx, reg, lane, warp);
  }
};

} // namespace

DotLayouts mlir::tileir::buildDotLayouts(MLIRContext *ctx, const MatrixInstruction &inst,
                                         int64_t m, int64_t n, int64_t k, int64_t numWarps) {
  int64_t wm = std::min(numWarps, m / inst.m), wn = std::min(numWarps / wm, n / inst.n);
  int64_t lm = llvm::Log2_64(m), ln = llvm::Log2_64(n), lk = llvm::Log2_64(k);
  int64_t lwm = llvm::Log2_64(wm), lwn = llvm::Log2_64(wn);
  int64_t im = llvm::Log2_64(inst.m), in = llvm::Log2_64(inst.n), ik = llvm::Log2_64(inst.k);
  int64_t spare = llvm::Log2_64(numWarps) - lwm - lwn;
  OperandBuilder a{lm, lk, {}, {}, {}}, b{lk, ln, {}, {}, {}}, c{lm, ln, {}, {}, {}};
  a.fragment(inst.a);
  a.regs(/*row=*/false, ik);
  a.regs(/*row=*/true, im + lwm);
  a.warps(/*row=*/true, im, lwm);
  a.copies(lwn + spare);
  b.fragment(inst.b);
  b.regs(/*row=*/true, ik);
  b.regs(/*row=*/false, in + lwn);
  b.copies(lwm);
  b.warps(/*row=*/false, in, lwn);
  b.copies(spare);
  c.fragment(inst.c);
  c.regs(/*row=*/false, in + lwn);
  c.regs(/*row=*/true, im + lwm);
  c.warps(/*row=*/true, im, lwm);
  c.warps(/*row=*/false, in, lwn);
  c.copies(spare);
  return {a.get(ctx), b.get(ctx), c.get(ctx)};
}

std::pair<int64_t, int64_t> mlir::tileir::resultWarps(DistributedLayoutAttr acc, int64_t n) {
  int64_t wm = 1, wn = 1, ln = llvm::Log2_64(n);
  for (int64_t bit : acc.getWarp()) {
    if (bit >= ln)
      wm *= 2;
    else if (bit >= 0)
      wn *= 2;
  }
  return {wm, wn};
}
