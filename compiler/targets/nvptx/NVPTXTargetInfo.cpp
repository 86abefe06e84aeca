//===- NVPTXTargetInfo.cpp - NVVM builders for the GPU lowering -----------===//
#include "NVPTXTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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
  void markKernel(Operation *func, unsigned threads) const override {
    MLIRContext *ctx = func->getContext();
    func->setAttr("nvvm.kernel", UnitAttr::get(ctx));
    func->setAttr("nvvm.maxntid", DenseI32ArrayAttr::get(ctx, {int32_t(threads), 1, 1}));
  }

private:
  NVPTXChip chip;
};

} // namespace

std::unique_ptr<GPUTargetInfo> mlir::tileir::createNVPTXTargetInfo(const NVPTXChip &chip) {
  return std::make_unique<NVPTXTargetInfo>(chip);
}
