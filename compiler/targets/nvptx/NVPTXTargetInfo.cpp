//===- NVPTXTargetInfo.cpp - NVVM builders for the GPU lowering -----------===//
#include "NVPTXTarget.h"

#include "NVPTXMatrix.h"

#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tileir;

namespace {

/// Whether `v` is a constant 0 (one of a tile's registers: an element of a
/// constant vector).
bool isZeroConstant(Value v) {
  if (auto extract = v.getDefiningOp<vector::ExtractOp>())
    v = extract.getSource();
  return matchPattern(v, m_AnyZeroFloat());
}

class NVPTXTargetInfo : public GPUTargetInfo {
public:
  explicit NVPTXTargetInfo(const NVPTXChip &chip) : chip(chip) {}
  StringRef name() const override { return chip.name; }
  unsigned warpSize() const override { return 32; }
  unsigned maxThreadsPerBlock() const override { return 1024; }
  int64_t sharedMemoryPerBlock() const override { return chip.sharedPerBlock; }
  int64_t staticSharedMemoryPerBlock() const override { return kNVPTXStaticSharedBytes; }
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
  Value shuffleIndex(OpBuilder &b, Location loc, Value v, Value lane) const override {
    Value all = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(-1));
    Value clamp = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0x1f));
    return NVVM::ShflOp::create(b, loc, v.getType(), all, v, lane, clamp, NVVM::ShflKind::idx,
                                UnitAttr());
  }
  bool canTranspose8x8() const override { return true; }
  // movmatrix (sm_75+) as inline PTX: LLVM 22's NVVM dialect has no op for it.
  Value transpose8x8(OpBuilder &b, Location loc, Value word) const override {
    return pureAsm(b, loc, word.getType(), word, "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;",
                   "=r,r");
  }
  void barrier(OpBuilder &b, Location loc) const override { NVVM::Barrier0Op::create(b, loc); }
  StringRef deviceScope() const override { return "device"; }
  // griddepcontrol (sm_90+) as inline PTX that clobbers memory: LLVM 22's
  // intrinsics (nvvm.griddepcontrol) are IntrNoMem, which lets LLVM move a
  // load above the wait (docs/toolchain-notes.md).
  void gridDependency(OpBuilder &b, Location loc, bool wait) const override {
    if (chip.name != "sm_90" && chip.name != "sm_90a")
      return;
    LLVM::InlineAsmOp::create(
        b, loc, Type(), ValueRange(),
        b.getStringAttr(wait ? "griddepcontrol.wait;" : "griddepcontrol.launch_dependents;"),
        b.getStringAttr("~{memory}"), b.getUnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
        LLVM::AsmDialectAttr(), ArrayAttr());
  }
  // dot on sm_90a: wgmma where it fits (NVPTXMatrix.h), else, and on the
  // other chips, mma.sync: m16n8k16 for f16/bf16 and m16n8k32 for fp8 (sm_89+),
  // f32 accumulate, warps tiling the result rows first. Fragments (PTX ISA,
  // "Matrix fragments for mma.m16n8k16 / m16n8k32"), lane l = 4 g + t:
  // 16-bit A element i: row g + 8 bit1(i), column 2t + bit0(i) + 8 bit2(i);
  // B: row 2t + bit0(i) + 8 bit1(i), column g. 8-bit A: row g + 8 bit2(i),
  // column 4t + (i & 3) + 16 bit3(i); B: row 4t + (i & 3) + 16 bit2(i),
  // column g. C: row g + 8 bit1(i), column 2t + bit0(i). Further registers
  // repeat the instruction tile.
  std::string dotLayouts(MLIRContext *ctx, Type elem, int64_t m, int64_t n, int64_t k,
                         int64_t numWarps, bool batched, DotLayouts &out) const override {
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(elem);
    if (fp8 && chip.name == "sm_80")
      return "dot of " + typeName(elem) + " needs fp8 matrix instructions (mma.sync m16n8k32), "
             "which sm_80 lacks: use sm_89 or newer";
    if (!fp8 && !isa<Float16Type, BFloat16Type>(elem))
      return "dot of " + typeName(elem) + " is not supported on " + chip.name;
    if (chip.name == "sm_90a" && !batched && nvptx::wgmmaLayouts(ctx, elem, m, n, k, numWarps, out))
      return "";
    int64_t ik = fp8 ? 32 : 16;
    if (m % 16 || n % 8 || k % ik)
      return "dot on " + chip.name + " needs M a multiple of 16, N of 8 and K of " +
             std::to_string(ik) + " (mma.sync m16n8k" + std::to_string(ik) + "), got M=" +
             std::to_string(m) + ", N=" + std::to_string(n) + ", K=" + std::to_string(k);
    // Fragment bits: column (false) or row (true) bit of the instruction tile.
    FragmentBit r0{true, 0}, r1{true, 1}, r2{true, 2}, r3{true, 3}, r4{true, 4};
    FragmentBit c0{false, 0}, c1{false, 1}, c2{false, 2}, c3{false, 3}, c4{false, 4};
    MatrixInstruction inst{16, 8, ik, nvptx::mmaAFragment(fp8), {},
                           {{c0, r3}, {c1, c2, r0, r1, r2}}};
    if (fp8)
      inst.b = {{r0, r1, r4}, {r2, r3, c0, c1, c2}};
    else
      inst.b = {{r0, r3}, {r1, r2, c0, c1, c2}};
    out = buildDotLayouts(ctx, inst, m, n, k, numWarps);
    return "";
  }

  SmallVector<Value> lowerDot(OpBuilder &b, Location loc, Type elem, int64_t m, int64_t n,
                              int64_t k, const DotLayouts &layouts, ArrayRef<Value> a,
                              ArrayRef<Value> bRegs, ArrayRef<Value> acc,
                              Value shared, bool bInShared) const override {
    if (shared)
      return nvptx::lowerWgmma(b, loc, elem, m, n, k, layouts, a, bRegs, acc, shared,
                               bInShared, threadId(b, loc));
    auto la = cast<DistributedLayoutAttr>(layouts.a), lb = cast<DistributedLayoutAttr>(layouts.b),
         lc = cast<DistributedLayoutAttr>(layouts.acc);
    auto [wm, wn] = resultWarps(lc, n);
    int64_t ln = llvm::Log2_64(n), lk = llvm::Log2_64(k);
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(elem);
    bool bf16 = isa<BFloat16Type>(elem);
    int64_t ik = fp8 ? 32 : 16, per = fp8 ? 4 : 2; // elements per 32-bit operand register
    auto word = [&](ArrayRef<Value> elems) { return nvptx::operandWord(b, loc, elem, elems); };
    Type f32 = b.getF32Type();
    Type resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    auto ptxType = fp8 ? (isa<Float8E4M3FNType>(elem) ? NVVM::MMATypes::e4m3
                                                      : NVVM::MMATypes::e5m2)
                       : bf16 ? NVVM::MMATypes::bf16
                              : NVVM::MMATypes::f16;
    auto bRow = [&](int64_t i) {
      return fp8 ? (i & 3) + 16 * ((i >> 2) & 1) : (i & 1) + 8 * ((i >> 1) & 1);
    };
    // Each mma.sync waits for the one before it on the same accumulators.
    // When a warp has fewer than kMinChains result tiles, that chain is K's
    // steps long and the instruction's latency is exposed at every step, so
    // the steps are dealt round-robin to several partial sums, added at the
    // end; a nonzero acc (the result of another dot, say) is added there
    // too, so that a chain of dots does not wait for one another.
    constexpr int64_t kMinChains = 4;
    int64_t tiles = (m / (16 * wm)) * (n / (8 * wn)), steps = k / ik;
    int64_t chains = std::clamp<int64_t>(kMinChains / tiles, 1, steps);
    bool addAcc = tiles < kMinChains && !llvm::all_of(acc, isZeroConstant);
    Value zero = chains > 1 || addAcc
                     ? Value(arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)))
                     : Value();
    SmallVector<Value> out(acc);
    for (int64_t mr = 0; mr < m / (16 * wm); ++mr)
      for (int64_t nr = 0; nr < n / (8 * wn); ++nr) {
        int64_t cRegs[4];
        for (int64_t i = 0; i < 4; ++i)
          cRegs[i] = lc.registerOf(((mr * 16 * wm + 8 * ((i >> 1) & 1)) << ln) |
                                   (nr * 8 * wn + (i & 1)));
        SmallVector<std::array<Value, 4>> partial(chains);
        for (int64_t c = 0; c < chains; ++c)
          for (int64_t i = 0; i < 4; ++i)
            partial[c][i] = c == 0 && !addAcc ? out[cRegs[i]] : zero;
        for (int64_t kr = 0; kr < steps; ++kr) {
          SmallVector<Value> av, bv, opA, opB;
          for (int64_t i = 0; i < 4 * per; ++i) {
            auto [dm, dk] = nvptx::mmaAElement(fp8, i);
            av.push_back(a[la.registerOf(((mr * 16 * wm + dm) << lk) | (kr * ik + dk))]);
          }
          for (int64_t i = 0; i < 2 * per; ++i)
            bv.push_back(bRegs[lb.registerOf(((kr * ik + bRow(i)) << ln) | (nr * 8 * wn))]);
          for (int64_t r = 0; r < 4; ++r)
            opA.push_back(word(ArrayRef<Value>(av).slice(r * per, per)));
          for (int64_t r = 0; r < 2; ++r)
            opB.push_back(word(ArrayRef<Value>(bv).slice(r * per, per)));
          std::array<Value, 4> &sum = partial[kr % chains];
          SmallVector<Value> opC(sum.begin(), sum.end());
          Value mma = fp8 ? fp8Mma(b, loc, resultType, ptxType, opA, opB, opC)
                          : NVVM::MmaOp::create(
                                b, loc, resultType, opA, opB, opC, ArrayRef<int64_t>{16, 8, ik},
                                std::nullopt, std::nullopt,
                                std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                               NVVM::MMALayout::col})
                                .getResult();
          for (int64_t i = 0; i < 4; ++i)
            sum[i] = LLVM::ExtractValueOp::create(b, loc, mma, ArrayRef<int64_t>{i});
        }
        for (int64_t i = 0; i < 4; ++i) {
          Value total = partial[0][i];
          for (int64_t c = 1; c < chains; ++c)
            total = arith::AddFOp::create(b, loc, total, partial[c][i]);
          out[cRegs[i]] = addAcc ? arith::AddFOp::create(b, loc, out[cRegs[i]], total) : total;
        }
      }
    return out;
  }

  void markKernel(Operation *func, unsigned threads, unsigned maxRegisters) const override {
    MLIRContext *ctx = func->getContext();
    func->setAttr("nvvm.kernel", UnitAttr::get(ctx));
    func->setAttr("nvvm.maxntid", DenseI32ArrayAttr::get(ctx, {int32_t(threads), 1, 1}));
    if (maxRegisters)
      func->setAttr("nvvm.maxnreg", IntegerAttr::get(IntegerType::get(ctx, 32), maxRegisters));
  }

  bool supportsRegisterLimit() const override { return true; }

  /// cp.async (sm_80+): 16-byte copies bypass L1 (.cg), smaller ones do not
  /// (.ca, the only form for 4 and 8 bytes); a false predicate copies 0
  /// source bytes, so the destination is zero-filled.
  bool asyncCopy(OpBuilder &b, Location loc, Value dst, Value src, int64_t bytes,
                 Value pred) const override {
    if (bytes != 4 && bytes != 8 && bytes != 16)
      return false;
    auto modifier = bytes == 16 ? NVVM::LoadCacheModifierKind::CG : NVVM::LoadCacheModifierKind::CA;
    Value size = arith::SelectOp::create(
        b, loc, pred, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(bytes))),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(int32_t(bytes)),
                            NVVM::LoadCacheModifierKindAttr::get(b.getContext(), modifier), size);
    return true;
  }
  void matrixReadFence(OpBuilder &b, Location loc) const override {
    nvptx::asyncProxyFence(b, loc);
  }
  // Bulk copies and mbarriers (sm_90+) as inline PTX that clobbers memory,
  // shared addresses as 32-bit offsets.
  bool hasBulkCopy() const override { return chip.name == "sm_90" || chip.name == "sm_90a"; }
  void initBarriers(OpBuilder &b, Location loc, Value first, int64_t count) const override {
    Value at = sharedOffset(b, loc, first);
    for (int64_t i = 0; i < count; ++i)
      effectAsm(b, loc, arith::AddIOp::create(b, loc, at, nvptx::i32(b, loc, 8 * i)).getResult(),
                "mbarrier.init.shared::cta.b64 [$0], 1;", "r,~{memory}");
    effectAsm(b, loc, {}, "fence.mbarrier_init.release.cluster;", "~{memory}");
  }
  // The fence orders the threads' earlier reads of the stage (generic proxy,
  // ended by the barrier before this call) before the copy's writes (async
  // proxy).
  void bulkCopy(OpBuilder &b, Location loc, Value dst, Value src, int64_t bytes,
                Value barrier) const override {
    Value global = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), src);
    effectAsm(b, loc,
              {sharedOffset(b, loc, dst), global, sharedOffset(b, loc, barrier),
               nvptx::i32(b, loc, bytes)},
              "fence.proxy.async.shared::cta;\n\t"
              "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$2], $3;\n\t"
              "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
              "[$0], [$1], $3, [$2];",
              "r,l,r,r,~{memory}");
  }
  void waitBarrier(OpBuilder &b, Location loc, Value barrier, Value phase) const override {
    effectAsm(b, loc, {sharedOffset(b, loc, barrier), phase},
              "{\n\t.reg .pred done;\n\twait_${:uid}:\n\t"
              "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n\t"
              "@!done bra wait_${:uid};\n\t}",
              "r,r,~{memory}");
  }
  void asyncCommit(OpBuilder &b, Location loc) const override {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  void asyncWait(OpBuilder &b, Location loc, int64_t pending) const override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(int32_t(pending)));
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
    return pureAsm(b, loc, resultType, operands, text, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f");
  }

  /// Inline PTX run for its effects (no result).
  static void effectAsm(OpBuilder &b, Location loc, ValueRange operands, StringRef text,
                        StringRef constraints) {
    LLVM::InlineAsmOp::create(b, loc, Type(), operands, b.getStringAttr(text),
                              b.getStringAttr(constraints), b.getUnitAttr(), UnitAttr(),
                              LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr());
  }

  /// A shared-memory pointer as the 32-bit offset PTX addresses it by.
  static Value sharedOffset(OpBuilder &b, Location loc, Value ptr) {
    return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
  }

  /// Inline PTX without side effects (its result is all it does).
  static Value pureAsm(OpBuilder &b, Location loc, Type resultType, ValueRange operands,
                       StringRef text, StringRef constraints) {
    return LLVM::InlineAsmOp::create(b, loc, resultType, operands, b.getStringAttr(text),
                                     b.getStringAttr(constraints), UnitAttr(), UnitAttr(),
                                     LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr())
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
