//===- NVPTXTargetInfo.cpp - NVVM builders for the GPU lowering -----------===//
#include "NVPTXTarget.h"

#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tileir;

namespace {

class NVPTXTargetInfo : public GPUTargetInfo {
public:
  explicit NVPTXTargetInfo(const NVPTXChip &chip) : chip(chip) {}
  StringRef name() const override { return chip.name; }
  unsigned warpSize() const override { return 32; }
  unsigned maxThreadsPerBlock() const override { return 1024; }
  int64_t sharedMemoryPerBlock() const override { return chip.sharedPerBlock; }
  int64_t staticSharedMemoryPerBlock() const override { return 48 * 1024; }
  int64_t sharedMemoryPerCU() const override { return chip.sharedPerSM; }
  unsigned globalAddressSpace() const override { return 1; }
  unsigned sharedAddressSpace() const override { return 3; }

  Value threadId(OpBuilder &b, Location loc) const override {
    return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  }
  Value programId(OpBuilder &b, Location loc, int axis) const override {
    Type i32 = b.getI32Type();
    if (axis == 0)
      return NVVM::BlockIdXOp::create(b, loc, i32);
    if (axis == 1)
      return NVVM::BlockIdYOp::create(b, loc, i32);
    return NVVM::BlockIdZOp::create(b, loc, i32);
  }
  Value numPrograms(OpBuilder &b, Location loc, int axis) const override {
    Type i32 = b.getI32Type();
    if (axis == 0)
      return NVVM::GridDimXOp::create(b, loc, i32);
    if (axis == 1)
      return NVVM::GridDimYOp::create(b, loc, i32);
    return NVVM::GridDimZOp::create(b, loc, i32);
  }
  Value shuffleXor(OpBuilder &b, Location loc, Value v, int mask) const override {
    Value all = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(-1));
    Value offset = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(mask));
    Value clamp = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x1f));
    return NVVM::ShflOp::create(b, loc, v.getType(), all, v, offset, clamp,
                                NVVM::ShflKind::bfly, UnitAttr());
  }
  void barrier(OpBuilder &b, Location loc) const override { NVVM::Barrier0Op::create(b, loc); }
  // dot on mma.sync.m16n8k16 (f16/bf16 in, f32 accumulate), warps tiling
  // the result: rows first. Fragment bits (PTX ISA, "Matrix fragments for
  // mma.m16n8k16"): A (16x16) element i of lane l is row l/4 + 8*bit1(i),
  // column 2*(l%4) + bit0(i) + 8*bit2(i); B (16x8): row 2*(l%4) + bit0(i) +
  // 8*bit1(i), column l/4; C (16x8): row l/4 + 8*bit1(i), column 2*(l%4) +
  // bit0(i). Further registers repeat the instruction tile.
  // dot on mma.sync: m16n8k16 for f16/bf16 and m16n8k32 for fp8 (sm_89+),
  // f32 accumulate, warps tiling the result rows first. Fragments (PTX ISA,
  // "Matrix fragments for mma.m16n8k16 / m16n8k32"), lane l = 4 g + t:
  // 16-bit A element i: row g + 8 bit1(i), column 2t + bit0(i) + 8 bit2(i);
  // B: row 2t + bit0(i) + 8 bit1(i), column g. 8-bit A: row g + 8 bit2(i),
  // column 4t + (i & 3) + 16 bit3(i); B: row 4t + (i & 3) + 16 bit2(i),
  // column g. C: row g + 8 bit1(i), column 2t + bit0(i). Further registers
  // repeat the instruction tile.
  std::string dotLayouts(MLIRContext *ctx, Type elem, int64_t m, int64_t n, int64_t k,
                         int64_t numWarps, DotLayouts &out) const override {
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(elem);
    if (fp8 && chip.name == "sm_80")
      return "dot of " + typeName(elem) + " needs fp8 matrix instructions (mma.sync m16n8k32), "
             "which sm_80 lacks: use sm_89 or newer";
    if (!fp8 && !isa<Float16Type, BFloat16Type>(elem))
      return "dot of " + typeName(elem) + " is not supported on " + chip.name;
    int64_t ik = fp8 ? 32 : 16;
    if (m % 16 || n % 8 || k % ik)
      return "dot on " + chip.name + " needs M a multiple of 16, N of 8 and K of " +
             std::to_string(ik) + " (mma.sync m16n8k" + std::to_string(ik) + "), got M=" +
             std::to_string(m) + ", N=" + std::to_string(n) + ", K=" + std::to_string(k);
    int64_t wm = std::min(numWarps, m / 16), wn = std::min(numWarps / wm, n / 8);
    int64_t lm = llvm::Log2_64(m), ln = llvm::Log2_64(n), lk = llvm::Log2_64(k);
    int64_t lwm = llvm::Log2_64(wm), lwn = llvm::Log2_64(wn), lik = llvm::Log2_64(ik);
    int64_t spare = llvm::Log2_64(numWarps) - lwm - lwn;
    auto range = [](SmallVector<int64_t> &list, int64_t from, int64_t to) {
      for (int64_t b = from; b < to; ++b)
        list.push_back(b);
    };
    auto none = [](SmallVector<int64_t> &list, int64_t count) { list.append(count, -1); };
    // C: n bits [0, ln), m bits [ln, ln + lm).
    SmallVector<int64_t> cReg{0, ln + 3}, cLane{1, 2, ln, ln + 1, ln + 2}, cWarp;
    range(cReg, 3 + lwn, ln);
    range(cReg, ln + 4 + lwm, ln + lm);
    range(cWarp, ln + 4, ln + 4 + lwm);
    range(cWarp, 3, 3 + lwn);
    none(cWarp, spare);
    // A: k bits [0, lk), m bits [lk, lk + lm); B: n bits [0, ln), k bits [ln, ln + lk).
    SmallVector<int64_t> aReg, aLane, aWarp, bReg, bLane, bWarp;
    if (fp8) {
      aReg = {0, 1, lk + 3, 4};
      aLane = {2, 3, lk, lk + 1, lk + 2};
      bReg = {ln, ln + 1, ln + 4};
      bLane = {ln + 2, ln + 3, 0, 1, 2};
    } else {
      aReg = {0, lk + 3, 3};
      aLane = {1, 2, lk, lk + 1, lk + 2};
      bReg = {ln, ln + 3};
      bLane = {ln + 1, ln + 2, 0, 1, 2};
    }
    range(aReg, lik, lk);
    range(aReg, lk + 4 + lwm, lk + lm);
    range(aWarp, lk + 4, lk + 4 + lwm);
    none(aWarp, lwn + spare);
    range(bReg, ln + lik, ln + lk);
    range(bReg, 3 + lwn, ln);
    none(bWarp, lwm);
    range(bWarp, 3, 3 + lwn);
    none(bWarp, spare);
    out.a = DistributedLayoutAttr::get(ctx, aReg, aLane, aWarp);
    out.b = DistributedLayoutAttr::get(ctx, bReg, bLane, bWarp);
    out.acc = DistributedLayoutAttr::get(ctx, cReg, cLane, cWarp);
    return "";
  }

  SmallVector<Value> lowerDot(OpBuilder &b, Location loc, Type elem, int64_t m, int64_t n,
                              int64_t k, const DotLayouts &layouts, ArrayRef<Value> a,
                              ArrayRef<Value> bRegs, ArrayRef<Value> acc) const override {
    auto la = cast<DistributedLayoutAttr>(layouts.a), lb = cast<DistributedLayoutAttr>(layouts.b),
         lc = cast<DistributedLayoutAttr>(layouts.acc);
    // Warps per row / column of the result: the warp bits of C.
    int64_t wm = 1, wn = 1, ln = llvm::Log2_64(n), lk = llvm::Log2_64(k);
    for (int64_t bit : lc.getWarp()) {
      if (bit >= ln)
        wm *= 2;
      else if (bit >= 0)
        wn *= 2;
    }
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(elem);
    bool bf16 = isa<BFloat16Type>(elem);
    int64_t ik = fp8 ? 32 : 16, per = fp8 ? 4 : 2; // elements per 32-bit operand register
    // `per` consecutive fragment elements as one operand register.
    auto word = [&](ArrayRef<Value> elems) -> Value {
      if (!fp8) {
        Value v = vector::FromElementsOp::create(b, loc, VectorType::get({2}, elem), elems);
        return bf16 ? Value(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v)) : v;
      }
      SmallVector<Value> bytes;
      for (Value e : elems)
        bytes.push_back(arith::BitcastOp::create(b, loc, b.getI8Type(), e));
      Value v = vector::FromElementsOp::create(b, loc, VectorType::get({4}, b.getI8Type()), bytes);
      return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
    };
    Type f32 = b.getF32Type();
    Type resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    auto ptxType = fp8 ? (isa<Float8E4M3FNType>(elem) ? NVVM::MMATypes::e4m3
                                                      : NVVM::MMATypes::e5m2)
                       : bf16 ? NVVM::MMATypes::bf16
                              : NVVM::MMATypes::f16;
    // Row (m or k) and column offsets of fragment element i within one instruction.
    auto aElement = [&](int64_t i) -> std::pair<int64_t, int64_t> {
      if (fp8)
        return {8 * ((i >> 2) & 1), (i & 3) + 16 * ((i >> 3) & 1)};
      return {8 * ((i >> 1) & 1), (i & 1) + 8 * ((i >> 2) & 1)};
    };
    auto bRow = [&](int64_t i) {
      return fp8 ? (i & 3) + 16 * ((i >> 2) & 1) : (i & 1) + 8 * ((i >> 1) & 1);
    };
    SmallVector<Value> out(acc);
    for (int64_t mr = 0; mr < m / (16 * wm); ++mr)
      for (int64_t nr = 0; nr < n / (8 * wn); ++nr) {
        int64_t cRegs[4];
        for (int64_t i = 0; i < 4; ++i)
          cRegs[i] = lc.registerOf(((mr * 16 * wm + 8 * ((i >> 1) & 1)) << ln) |
                                   (nr * 8 * wn + (i & 1)));
        for (int64_t kr = 0; kr < k / ik; ++kr) {
          SmallVector<Value> av, bv, opA, opB;
          for (int64_t i = 0; i < 4 * per; ++i) {
            auto [dm, dk] = aElement(i);
            av.push_back(a[la.registerOf(((mr * 16 * wm + dm) << lk) | (kr * ik + dk))]);
          }
          for (int64_t i = 0; i < 2 * per; ++i)
            bv.push_back(bRegs[lb.registerOf(((kr * ik + bRow(i)) << ln) | (nr * 8 * wn))]);
          for (int64_t r = 0; r < 4; ++r)
            opA.push_back(word(ArrayRef<Value>(av).slice(r * per, per)));
          for (int64_t r = 0; r < 2; ++r)
            opB.push_back(word(ArrayRef<Value>(bv).slice(r * per, per)));
          SmallVector<Value> opC{out[cRegs[0]], out[cRegs[1]], out[cRegs[2]], out[cRegs[3]]};
          Value mma = fp8 ? fp8Mma(b, loc, resultType, ptxType, opA, opB, opC)
                          : NVVM::MmaOp::create(
                                b, loc, resultType, opA, opB, opC, ArrayRef<int64_t>{16, 8, ik},
                                std::nullopt, std::nullopt,
                                std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                               NVVM::MMALayout::col})
                                .getResult();
          for (int64_t i = 0; i < 4; ++i)
            out[cRegs[i]] = LLVM::ExtractValueOp::create(b, loc, mma, ArrayRef<int64_t>{i});
        }
      }
    return out;
  }

  void markKernel(Operation *func, unsigned threads) const override {
    MLIRContext *ctx = func->getContext();
    func->setAttr("nvvm.kernel", UnitAttr::get(ctx));
    func->setAttr("nvvm.maxntid", DenseI32ArrayAttr::get(ctx, {int32_t(threads), 1, 1}));
  }

private:
  /// mma.sync m16n8k32 on fp8 as inline PTX: LLVM 22's nvvm.mma.sync does not
  /// take e4m3/e5m2 multiplicands.
  static Value fp8Mma(OpBuilder &b, Location loc, Type resultType, NVVM::MMATypes type,
                      ArrayRef<Value> a, ArrayRef<Value> bRegs, ArrayRef<Value> c) {
    std::string t = stringifyMMATypes(type).str();
    std::string text = "mma.sync.aligned.m16n8k32.row.col.f32." + t + "." + t +
                       ".f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                       "{$10, $11, $12, $13};";
    SmallVector<Value> operands(a);
    llvm::append_range(operands, bRegs);
    llvm::append_range(operands, c);
    return LLVM::InlineAsmOp::create(b, loc, resultType, operands, b.getStringAttr(text),
                                     b.getStringAttr("=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f"),
                                     UnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
                                     LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  }

  static std::string typeName(Type t) {
    std::string text;
    llvm::raw_string_ostream os(text);
    t.print(os);
    return text;
  }
  NVPTXChip chip;
};

} // namespace

std::unique_ptr<GPUTargetInfo> mlir::tileir::createNVPTXTargetInfo(const NVPTXChip &chip) {
  return std::make_unique<NVPTXTargetInfo>(chip);
}
