//===- AllocateShared.cpp - place shared memory / LDS buffers -------------===//
//
// Every op that needs shared memory (SharedMemory.h) gets a buffer live from
// the op that writes it to the last op that reads it: scratch of one op is
// written and read back before the op ends; a ring buffer of pipelined loads
// (tile.stage_buffer) lives from its definition to the end of the last loop
// that uses it, and a gather's table that is defined outside a loop around
// the gather lives through that loop (it is written once, before it). Buffers whose
// lifetimes do not overlap share bytes: buffers are placed largest first at
// the lowest offset, aligned as the buffer asks (16 bytes by default), free
// of every buffer live at the same time. The offsets go on the ops, the kernel's total on the kernel.
//
//===----------------------------------------------------------------------===//
#include "tile/Analysis/SharedMemory.h"
#include "tile/Dialect/TileDialect.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_ALLOCATESHARED
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;
using namespace mlir::tileir;

namespace {

struct Buffer {
  Operation *op;
  int64_t bytes, alignment;
  int64_t start, end; // live over ops [start, end] in program order
  int64_t offset = 0;
};

int64_t allocate(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::sort(order, [](Buffer *a, Buffer *b) {
    return std::make_pair(-a->bytes, a->start) < std::make_pair(-b->bytes, b->start);
  });
  int64_t total = 0;
  SmallVector<Buffer *> placed;
  for (Buffer *buffer : order) {
    // Intervals taken by placed buffers live at the same time, by offset.
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Buffer *other : placed)
      if (other->start <= buffer->end && buffer->start <= other->end)
        taken.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + buffer->bytes <= begin)
        break;
      offset = std::max<int64_t>(offset, llvm::alignTo(end, buffer->alignment));
    }
    buffer->offset = offset;
    placed.push_back(buffer);
    total = std::max(total, offset + buffer->bytes);
  }
  return total;
}

struct AllocateShared : mlir::tileir::impl::AllocateSharedBase<AllocateShared> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Type i64 = IntegerType::get(ctx, 64);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr("tile.kernel"))
        continue;
      SmallVector<Buffer> buffers;
      DenseMap<Operation *, int64_t> positions;
      int64_t position = 0;
      func.walk<WalkOrder::PreOrder>([&](Operation *op) {
        positions[op] = ++position;
        if (int64_t bytes = sharedScratchBytes(op))
          buffers.push_back({op, bytes, sharedAlignment(op), position, position});
      });
      for (Buffer &b : buffers) {
        // A gather table written before its loop lives through the loop.
        if (Operation *loop = gatherTableLoop(b.op)) {
          b.start = positions[loop];
          loop->walk([&](Operation *nested) { b.end = std::max(b.end, positions[nested]); });
        }
        if (!isa<StageBufferOp>(b.op))
          continue;
        for (Operation *user : b.op->getUsers()) {
          // The user's ancestor next to the buffer: a loop keeps the buffer
          // live through its last op.
          Operation *outer = b.op->getBlock()->findAncestorOpInBlock(*user);
          int64_t last = positions[outer];
          outer->walk([&](Operation *nested) { last = std::max(last, positions[nested]); });
          b.end = std::max(b.end, last);
        }
      }
      int64_t total = allocate(buffers);
      for (const Buffer &b : buffers) {
        b.op->setAttr(kSharedOffsetAttr, IntegerAttr::get(i64, b.offset));
        if (isa<StageBufferOp>(b.op)) // the copies and waits address it
          for (Operation *user : b.op->getUsers())
            user->setAttr(kSharedOffsetAttr, IntegerAttr::get(i64, b.offset));
      }
      func->setAttr(kSharedBytesAttr, IntegerAttr::get(i64, total));
      int64_t alignment = 16;
      for (const Buffer &b : buffers)
        alignment = std::max(alignment, b.alignment);
      if (alignment > 16)
        func->setAttr(kSharedAlignmentAttr, IntegerAttr::get(i64, alignment));
    }
  }
};

} // namespace
