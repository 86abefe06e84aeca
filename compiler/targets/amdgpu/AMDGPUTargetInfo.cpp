//===- AMDGPUTargetInfo.cpp - ROCDL builders for the GPU lowering ---------===//
//
// Wave64 on every chip here. Nothing calls the ROCm device libraries: the
// grid size comes from the hidden kernel arguments of code object v5+.
//
//===----------------------------------------------------------------------===//
#include "AMDGPUTarget.h"

#include "../MatrixLayouts.h"

#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tileir;

namespace {

constexpr unsigned kWaveSize = 64;
/// Address space of the kernel argument segment (constant memory).
constexpr unsigned kConstantAddressSpace = 4;

Value i32Const(OpBuilder &b, Location loc, int32_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

class AMDGPUTargetInfo : public GPUTargetInfo {
public:
  explicit AMDGPUTargetInfo(const AMDGPUChip &chip) : chip(chip) {}
  StringRef name() const override { return chip.name; }
  unsigned warpSize() const override { return kWaveSize; }
  unsigned maxThreadsPerBlock() const override { return 1024; }
  int64_t sharedMemoryPerBlock() const override { return chip.ldsPerWorkgroup; }
  int64_t staticSharedMemoryPerBlock() const override { return chip.ldsPerWorkgroup; }
  // gfx90a/gfx942 (64 KiB) and gfx950 (160 KiB): a workgroup may use a whole CU's LDS.
  int64_t sharedMemoryPerCU() const override { return chip.ldsPerWorkgroup; }
  unsigned globalAddressSpace() const override {
    return ROCDL::ROCDLDialect::kGlobalMemoryAddressSpace;
  }
  unsigned sharedAddressSpace() const override {
    return ROCDL::ROCDLDialect::kSharedMemoryAddressSpace;
  }

  Value threadId(OpBuilder &b, Location loc) const override {
    return ROCDL::ThreadIdXOp::create(b, loc, b.getI32Type());
  }
  Value programId(OpBuilder &b, Location loc, int axis) const override {
    Type i32 = b.getI32Type();
    if (axis == 0)
      return ROCDL::BlockIdXOp::create(b, loc, i32);
    if (axis == 1)
      return ROCDL::BlockIdYOp::create(b, loc, i32);
    return ROCDL::BlockIdZOp::create(b, loc, i32);
  }
  /// hidden_block_count_{x,y,z}: the first three i32 of the implicit
  /// arguments (code object v5 and later).
  Value numPrograms(OpBuilder &b, Location loc, int axis) const override {
    Type i32 = b.getI32Type();
    auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), kConstantAddressSpace);
    Value implicitArgs =
        LLVM::CallIntrinsicOp::create(b, loc, ptrType,
                                      b.getStringAttr("llvm.amdgcn.implicitarg.ptr"),
                                      ValueRange())
            .getResult(0);
    Value count = LLVM::GEPOp::create(b, loc, ptrType, i32, implicitArgs,
                                      ArrayRef<LLVM::GEPArg>{axis});
    return LLVM::LoadOp::create(b, loc, i32, count, /*alignment=*/4, /*isVolatile=*/false,
                                /*isNonTemporal=*/false, /*isInvariant=*/true);
  }
  /// Lane masks below 32 stay within a half-wave: ds_swizzle in bitmask mode
  /// (and 0x1f, or 0, xor mask). Mask 32 crosses halves: ds_bpermute.
  Value shuffleXor(OpBuilder &b, Location loc, Value v, int mask) const override {
    Type i32 = b.getI32Type();
    Value bits = v.getType() == i32 ? v : arith::BitcastOp::create(b, loc, i32, v);
    Value moved;
    if (mask < 32) {
      Value pattern = i32Const(b, loc, 0x1f | (mask << 10));
      moved = ROCDL::DsSwizzleOp::create(b, loc, i32, bits, pattern);
    } else {
      Value lane = arith::AndIOp::create(b, loc, threadId(b, loc),
                                         i32Const(b, loc, kWaveSize - 1));
      moved = shuffleIndex(b, loc, bits,
                           arith::XOrIOp::create(b, loc, lane, i32Const(b, loc, mask)));
    }
    return v.getType() == i32 ? moved : arith::BitcastOp::create(b, loc, v.getType(), moved);
  }
  /// ds_bpermute: a byte address of four times the lane.
  Value shuffleIndex(OpBuilder &b, Location loc, Value v, Value lane) const override {
    Value address = arith::ShLIOp::create(b, loc, lane, i32Const(b, loc, 2));
    return ROCDL::DsBpermuteOp::create(b, loc, b.getI32Type(), address, v);
  }
  /// s_barrier between workgroup-scope release and acquire fences, which
  /// make the LDS writes before it visible after it.
  void barrier(OpBuilder &b, Location loc) const override {
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "workgroup");
    ROCDL::SBarrierOp::create(b, loc);
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "workgroup");
  }
  StringRef deviceScope() const override { return "agent"; }
  // dot on MFMA (f32 accumulate, wave64): 16x16x16 for f16
  // (v_mfma_f32_16x16x16f16) and bf16 (..bf16_1k), 16x16x32 for fp8 on
  // gfx942/gfx950 (v_mfma_f32_16x16x32_{fp8_fp8,bf8_bf8}: fnuz on gfx942, OCP
  // on gfx950, as the loads decode them), wavefronts tiling the result rows
  // first. Fragments (CDNA3 ISA, "Matrix fused multiply-add"; the matrix
  // instruction calculator), lane l, element i of E = 4 (16-bit) or 8 (fp8):
  // A row l % 16, column E (l / 16) + i; B row E (l / 16) + i, column l % 16;
  // C row 4 (l / 16) + i, column l % 16. Further registers repeat the tile.
  std::string dotLayouts(MLIRContext *ctx, Type elem, int64_t m, int64_t n, int64_t k,
                         int64_t numWarps, bool /*batched*/, DotLayouts &out) const override {
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(elem);
    if (fp8 && chip.name == "gfx90a")
      return "dot of fp8 needs fp8 MFMA instructions, which gfx90a lacks: use gfx942 or gfx950";
    if (!fp8 && !isa<Float16Type, BFloat16Type>(elem))
      return "dot is not supported on " + chip.name + " for this element type";
    int64_t ik = fp8 ? 32 : 16;
    if (m % 16 || n % 16 || k % ik)
      return "dot on " + chip.name + " needs M and N multiples of 16 and K of " +
             std::to_string(ik) + " (MFMA 16x16x" + std::to_string(ik) + "), got M=" +
             std::to_string(m) + ", N=" + std::to_string(n) + ", K=" + std::to_string(k);
    // Fragment bits: column (false) or row (true) bit of the instruction
    // tile; fp8 has 8 elements a lane (3 register bits), 16-bit types 4.
    auto row = [](int64_t b) { return FragmentBit{true, b}; };
    auto col = [](int64_t b) { return FragmentBit{false, b}; };
    int64_t le = fp8 ? 3 : 2;
    MatrixInstruction inst{16, 16, ik, {}, {}, {{row(0), row(1)},
                                                {col(0), col(1), col(2), col(3), row(2), row(3)}}};
    inst.a.lane = {row(0), row(1), row(2), row(3), col(le), col(le + 1)};
    inst.b.lane = {col(0), col(1), col(2), col(3), row(le), row(le + 1)};
    for (int64_t e = 0; e < le; ++e) {
      inst.a.reg.push_back(col(e));
      inst.b.reg.push_back(row(e));
    }
    out = buildDotLayouts(ctx, inst, m, n, k, numWarps);
    return "";
  }

  SmallVector<Value> lowerDot(OpBuilder &b, Location loc, Type elem, int64_t m, int64_t n,
                              int64_t k, const DotLayouts &layouts, ArrayRef<Value> a,
                              ArrayRef<Value> bRegs, ArrayRef<Value> acc, Value,
                              bool) const override {
    auto la = cast<DistributedLayoutAttr>(layouts.a), lb = cast<DistributedLayoutAttr>(layouts.b),
         lc = cast<DistributedLayoutAttr>(layouts.acc);
    auto [wm, wn] = resultWarps(lc, n);
    int64_t ln = llvm::Log2_64(n), lk = llvm::Log2_64(k);
    bool bf16 = isa<BFloat16Type>(elem);
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(elem);
    int64_t e = fp8 ? 8 : 4, ik = 4 * e;
    auto operand = [&](ArrayRef<Value> elems) -> Value {
      if (fp8) { // eight bytes as one i64
        SmallVector<Value> bytes;
        for (Value v : elems)
          bytes.push_back(arith::BitcastOp::create(b, loc, b.getI8Type(), v));
        Value v = vector::FromElementsOp::create(b, loc, VectorType::get({8}, b.getI8Type()), bytes);
        return LLVM::BitcastOp::create(b, loc, b.getI64Type(), v);
      }
      Value v = vector::FromElementsOp::create(b, loc, VectorType::get({4}, elem), elems);
      return bf16 ? Value(LLVM::BitcastOp::create(b, loc, VectorType::get({4}, b.getI16Type()), v))
                  : v;
    };
    Type accType = VectorType::get({4}, b.getF32Type());
    Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    SmallVector<Value> out(acc);
    for (int64_t mr = 0; mr < m / (16 * wm); ++mr)
      for (int64_t nr = 0; nr < n / (16 * wn); ++nr) {
        int64_t cRegs[4];
        for (int64_t i = 0; i < 4; ++i)
          cRegs[i] = lc.registerOf(((mr * 16 * wm + i) << ln) | (nr * 16 * wn));
        for (int64_t kr = 0; kr < k / ik; ++kr) {
          SmallVector<Value> av, bv;
          for (int64_t i = 0; i < e; ++i) {
            av.push_back(a[la.registerOf(((mr * 16 * wm) << lk) | (kr * ik + i))]);
            bv.push_back(bRegs[lb.registerOf(((kr * ik + i) << ln) | (nr * 16 * wn))]);
          }
          Value c = vector::FromElementsOp::create(
              b, loc, accType,
              ValueRange{out[cRegs[0]], out[cRegs[1]], out[cRegs[2]], out[cRegs[3]]});
          SmallVector<Value> args{operand(av), operand(bv), c, zero, zero, zero};
          Value d;
          if (isa<Float8E4M3FNType>(elem))
            d = ROCDL::mfma_f32_16x16x32_fp8_fp8::create(b, loc, accType, args).getResult();
          else if (isa<Float8E5M2Type>(elem))
            d = ROCDL::mfma_f32_16x16x32_bf8_bf8::create(b, loc, accType, args).getResult();
          else if (bf16)
            d = ROCDL::mfma_f32_16x16x16bf16_1k::create(b, loc, accType, args).getResult();
          else
            d = ROCDL::mfma_f32_16x16x16f16::create(b, loc, accType, args).getResult();
          for (int64_t i = 0; i < 4; ++i)
            out[cRegs[i]] = vector::ExtractOp::create(b, loc, d, i);
        }
      }
    return out;
  }

  void markKernel(Operation *func, unsigned threads, unsigned maxRegisters) const override {
    assert(!maxRegisters && "checkTarget refuses register limits on AMD targets");
    MLIRContext *ctx = func->getContext();
    std::string size = std::to_string(threads);
    func->setAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
    func->setAttr(ROCDL::ROCDLDialect::getFlatWorkGroupSizeAttrName(),
                  StringAttr::get(ctx, size + "," + size));
    func->setAttr(ROCDL::ROCDLDialect::getReqdWorkGroupSizeAttrName(),
                  DenseI32ArrayAttr::get(ctx, {int32_t(threads), 1, 1}));
  }

private:
  AMDGPUChip chip;
};

} // namespace

std::unique_ptr<GPUTargetInfo> mlir::tileir::createAMDGPUTargetInfo(const AMDGPUChip &chip) {
  return std::make_unique<AMDGPUTargetInfo>(chip);
}
