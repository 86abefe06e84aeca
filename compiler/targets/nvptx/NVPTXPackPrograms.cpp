//===- NVPTXPackPrograms.cpp - several programs in one CTA ----------------===//
//
// A program is one CTA. With --programs-per-cta K, K programs that follow
// each other along axis 1 run as one CTA of K x T threads (T the program's
// threads), so that they share an SM and run side by side: TurboQuant's
// stage 1 has one program a kv head and a token row holds every kv head's
// slot, and a row's programs reading it together from one SM take 0.88-0.95x
// the time of programs spread over the GPU (bench/RESULTS.md run 115).
//
// After tile-to-gpu, the program's view of the hardware comes from a few
// NVVM ops, which this pass rewrites (sub = tid.x / T, the program's place in
// its CTA):
//  - tid.x becomes tid.x % T;
//  - ctaid.y becomes ctaid.y * K + sub and nctaid.y becomes nctaid.y * K
//    (the launch divides the grid's y by K: Runtime::run);
//  - bar.sync 0 (a whole-CTA barrier) becomes a barrier of the program's
//    threads only: bar.warp.sync where a program is one warp, else
//    barrier `sub` counting T threads (so K <= 16, PTX's barriers);
//  - the shared-memory array is K times as large (dynamic past 48 KiB, as
//    for one program: declareSharedArray) and each program uses its own
//    slice (its size rounded up to the array's alignment).
// The kernel's tile.threads and tile.shared_bytes become the CTA's.
//===----------------------------------------------------------------------===//
#include "NVPTXPackPrograms.h"

#include "NVPTXTarget.h"

#include "../../conversion/GPULowering.h"
#include "tile/Analysis/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace {

Value i32Value(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

struct NVPTXPackPrograms : PassWrapper<NVPTXPackPrograms, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NVPTXPackPrograms)
  NVPTXPackPrograms() = default;
  NVPTXPackPrograms(const NVPTXPackPrograms &other) : PassWrapper(other) {}
  explicit NVPTXPackPrograms(unsigned k) { programs = k; }

  StringRef getArgument() const override { return "tile-nvptx-pack-programs"; }
  StringRef getDescription() const override {
    return "Run consecutive programs along axis 1 as the thread groups of one CTA (NVIDIA)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  }

  Option<unsigned> programs{*this, "programs", llvm::cl::desc("Programs a CTA"),
                            llvm::cl::init(1)};

  void runOnOperation() override {
    if (programs <= 1)
      return;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr("tile.kernel") && failed(pack(func)))
        return signalPassFailure();
  }

  LogicalResult pack(func::FuncOp func) {
    ModuleOp module = getOperation();
    auto array = module.lookupSymbol<LLVM::GlobalOp>(tileir::kSharedArray);
    auto threadsAttr = func->getAttrOfType<IntegerAttr>("tile.threads");
    assert(threadsAttr && "tile-assign-layouts sets a kernel's threads");
    int64_t k = programs, threads = threadsAttr.getInt();
    assert(threads % 32 == 0 && "a program is whole warps");
    assert(k <= 16 && "checkTarget: one of PTX's 16 barriers a program");

    OpBuilder b(func.getContext());
    Location loc = func.getLoc();
    b.setInsertionPointToStart(&func.front());
    Type i32 = b.getI32Type();
    Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
    Value sub = arith::DivUIOp::create(b, loc, tid, i32Value(b, loc, threads));
    Value local = arith::RemUIOp::create(b, loc, tid, i32Value(b, loc, threads));

    int64_t slice = 0;
    if (array) {
      int64_t alignment = int64_t(array.getAlignment().value_or(16));
      slice = llvm::alignTo(func->getAttrOfType<IntegerAttr>(tileir::kSharedBytesAttr).getInt(),
                            alignment);
      tileir::declareSharedArray(module, slice * k, alignment, array.getAddrSpace(),
                                 tileir::kNVPTXStaticSharedBytes);
    }

    SmallVector<Operation *> work;
    func.walk([&](Operation *op) {
      if (op != tid.getDefiningOp())
        work.push_back(op);
    });
    for (Operation *op : work) {
      b.setInsertionPoint(op);
      Location at = op->getLoc();
      if (isa<NVVM::ThreadIdXOp>(op)) {
        op->replaceAllUsesWith(ValueRange{local});
        op->erase();
      } else if (isa<NVVM::BlockIdYOp>(op)) {
        b.setInsertionPointAfter(op);
        Value scaled = arith::MulIOp::create(b, at, op->getResult(0), i32Value(b, at, k));
        Value id = arith::AddIOp::create(b, at, scaled, sub);
        op->getResult(0).replaceAllUsesExcept(id, scaled.getDefiningOp());
      } else if (isa<NVVM::GridDimYOp>(op)) {
        b.setInsertionPointAfter(op);
        Value scaled = arith::MulIOp::create(b, at, op->getResult(0), i32Value(b, at, k));
        op->getResult(0).replaceAllUsesExcept(scaled, scaled.getDefiningOp());
      } else if (isa<NVVM::Barrier0Op>(op)) {
        if (threads == 32)
          NVVM::SyncWarpOp::create(b, at, i32Value(b, at, -1));
        else
          NVVM::BarrierOp::create(b, at, TypeRange{}, sub, i32Value(b, at, threads),
                                  NVVM::BarrierReductionAttr(), Value());
        op->erase();
      } else if (auto address = dyn_cast<LLVM::AddressOfOp>(op);
                 address && address.getGlobalName() == tileir::kSharedArray) {
        b.setInsertionPointAfter(op);
        Value offset = arith::MulIOp::create(b, at, sub, i32Value(b, at, slice));
        auto gep = LLVM::GEPOp::create(b, at, address.getType(), b.getI8Type(),
                                       address.getResult(), ValueRange{offset});
        address.getResult().replaceAllUsesExcept(gep, gep);
      } else if (isa<NVVM::BarrierOp>(op)) {
        return op->emitError("tile-nvptx-pack-programs: a barrier other than bar.sync 0");
      }
    }
    func->setAttr("tile.threads", b.getI64IntegerAttr(threads * k));
    func->setAttr(tileir::kSharedBytesAttr, b.getI64IntegerAttr(slice * k));
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> mlir::tileir::createNVPTXPackProgramsPass(unsigned programs) {
  return std::make_unique<NVPTXPackPrograms>(programs);
}
