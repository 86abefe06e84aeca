//===- AMDGPUTargetInfo.cpp - ROCDL builders for the GPU lowering ---------===//
//
// Wave64 on every chip here. Nothing calls the ROCm device libraries: the
// grid size comes from the hidden kernel arguments of code object v5+.
//
//===----------------------------------------------------------------------===//
#include "AMDGPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

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
      Value source = arith::XOrIOp::create(b, loc, lane, i32Const(b, loc, mask));
      Value address = arith::ShLIOp::create(b, loc, source, i32Const(b, loc, 2));
      moved = ROCDL::DsBpermuteOp::create(b, loc, i32, address, bits);
    }
    return v.getType() == i32 ? moved : arith::BitcastOp::create(b, loc, v.getType(), moved);
  }
  /// s_barrier between workgroup-scope release and acquire fences, which
  /// make the LDS writes before it visible after it.
  void barrier(OpBuilder &b, Location loc) const override {
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "workgroup");
    ROCDL::SBarrierOp::create(b, loc);
    LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "workgroup");
  }
  std::string dotLayouts(MLIRContext *, Type, int64_t, int64_t, int64_t, int64_t,
                         DotLayouts &) const override {
    return "the AMDGPU targets do not lower dot in this version (MFMA is the next step; the "
           "host and NVIDIA targets do)";
  }
  SmallVector<Value> lowerDot(OpBuilder &, Location, Type, int64_t, int64_t, int64_t,
                              const DotLayouts &, ArrayRef<Value>, ArrayRef<Value>,
                              ArrayRef<Value> acc) const override {
    llvm_unreachable("dotLayouts refused dot");
  }
  void markKernel(Operation *func, unsigned threads) const override {
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
