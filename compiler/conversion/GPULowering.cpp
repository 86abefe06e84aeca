//===- GPULowering.cpp - what the tile-to-GPU patterns share --------------===//
#include "GPULowering.h"

#include "tile/Analysis/SharedMemory.h"

using namespace mlir;
using namespace mlir::tileir;

SmallVector<Value> mlir::tileir::unpack(OpBuilder &b, Location loc, Value v) {
  auto type = dyn_cast<VectorType>(v.getType());
  if (!type)
    return {v};
  SmallVector<Value> out;
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    out.push_back(vector::ExtractOp::create(b, loc, v, i));
  return out;
}

Value mlir::tileir::pack(OpBuilder &b, Location loc, Type type, ArrayRef<Value> elems) {
  if (!isa<VectorType>(type))
    return elems.front();
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(type), elems);
}

Value mlir::tileir::threadIndex(OpBuilder &b, Location loc, const GPUTargetInfo &target,
                                DistributedLayoutAttr layout) {
  // (thread-id bit, index bit) for every thread bit that selects elements.
  SmallVector<std::pair<int64_t, int64_t>> bits;
  int64_t laneBits = layout.getLane().size();
  for (auto [j, bit] : llvm::enumerate(layout.getLane()))
    if (bit >= 0)
      bits.push_back({int64_t(j), bit});
  for (auto [k, bit] : llvm::enumerate(layout.getWarp()))
    if (bit >= 0)
      bits.push_back({laneBits + int64_t(k), bit});
  Value index = i32Const(b, loc, 0);
  if (bits.empty())
    return index;
  Value tid = target.threadId(b, loc);
  // Runs of consecutive thread bits numbering consecutive index bits move together.
  for (size_t i = 0; i < bits.size();) {
    size_t j = i + 1;
    while (j < bits.size() && bits[j].first == bits[j - 1].first + 1 &&
           bits[j].second == bits[j - 1].second + 1)
      ++j;
    int64_t from = bits[i].first, to = bits[i].second, count = int64_t(j - i);
    Value part = tid;
    if (from)
      part = arith::ShRUIOp::create(b, loc, part, i32Const(b, loc, from));
    part = arith::AndIOp::create(b, loc, part, i32Const(b, loc, (int64_t(1) << count) - 1));
    if (to)
      part = arith::ShLIOp::create(b, loc, part, i32Const(b, loc, to));
    index = arith::OrIOp::create(b, loc, index, part);
    i = j;
  }
  return index;
}

int64_t mlir::tileir::compressBits(int64_t r, ArrayRef<bool> keep) {
  int64_t out = 0, next = 0;
  for (auto [i, k] : llvm::enumerate(keep))
    if (k)
      out |= ((r >> i) & 1) << next++;
  return out;
}

int64_t mlir::tileir::consecutiveRegisters(DistributedLayoutAttr layout) {
  int64_t k = 0;
  while (k < int64_t(layout.getReg().size()) && layout.getReg()[k] == k)
    ++k;
  return int64_t(1) << k;
}

void mlir::tileir::declareSharedArray(ModuleOp module, int64_t bytes, int64_t alignment,
                                      unsigned addressSpace, int64_t staticLimit) {
  if (auto old = module.lookupSymbol<LLVM::GlobalOp>(kSharedArray))
    old->erase();
  OpBuilder b(module.getBodyRegion());
  bool dynamic = bytes > staticLimit;
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), dynamic ? 0 : bytes);
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false,
                         dynamic ? LLVM::Linkage::External : LLVM::Linkage::Internal, kSharedArray,
                         Attribute(), alignment, addressSpace);
}

Value mlir::tileir::sharedAddress(OpBuilder &b, Location loc, const GPUTargetInfo &target,
                                  Operation *op, Value offset) {
  auto base = cast<IntegerAttr>(op->getAttr(kSharedOffsetAttr)).getInt();
  Type ptrType = LLVM::LLVMPointerType::get(b.getContext(), target.sharedAddressSpace());
  Value array = LLVM::AddressOfOp::create(b, loc, ptrType, kSharedArray);
  Value byte = arith::AddIOp::create(b, loc, offset, i32Const(b, loc, base));
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), array, ValueRange{byte});
}

int64_t mlir::tileir::stageDataBytes(StageBufferOp stages) {
  return stages.getBytes() - (stages->hasAttr(kStageBulkAttr) ? 8 * stages.getStages() : 0);
}

Value mlir::tileir::stageBarrier(OpBuilder &b, Location loc, const GPUTargetInfo &target,
                                 Operation *op, Value buffer, Value stage) {
  auto stages = buffer.getDefiningOp<StageBufferOp>();
  Value offset = arith::AddIOp::create(b, loc, i32Const(b, loc, stageDataBytes(stages)),
                                       arith::MulIOp::create(b, loc, stage, i32Const(b, loc, 8)));
  return sharedAddress(b, loc, target, op, offset);
}

Value mlir::tileir::insideLiveElements(OpBuilder &b, Location loc, Value buffer, Value index) {
  auto live = buffer.getDefiningOp()->getAttrOfType<IntegerAttr>(kStageLiveAttr);
  if (!live)
    return Value();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                               i32Const(b, loc, live.getInt()));
}

Value mlir::tileir::stageAddress(OpBuilder &b, Location loc, const GPUTargetInfo &target,
                                 Operation *op, Value buffer, Value stage, Value index,
                                 int64_t elemBytes) {
  auto stages = buffer.getDefiningOp<StageBufferOp>();
  int64_t stageBytes = stageDataBytes(stages) / stages.getStages();
  Value byte = arith::MulIOp::create(b, loc, index, i32Const(b, loc, elemBytes));
  if (stages.getSwizzled()) // chunk ^= row % 8
    byte = arith::XOrIOp::create(
        b, loc, byte,
        arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, byte, i32Const(b, loc, 3)),
                              i32Const(b, loc, 0x70)));
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, stage, i32Const(b, loc, stageBytes)), byte);
  return sharedAddress(b, loc, target, op, offset);
}

Type mlir::tileir::memoryType(Type elem, int64_t count) {
  // bool and fp8 live in memory as i8 (LLVM has no fp8 type).
  if (elem.getIntOrFloatBitWidth() <= 8)
    elem = IntegerType::get(elem.getContext(), 8);
  return count == 1 ? elem : VectorType::get({count}, elem);
}

Value mlir::tileir::toMemory(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Type elem = values.front().getType();
  Type type = memoryType(elem, int64_t(values.size()));
  Type storage = getElementTypeOrSelf(type);
  SmallVector<Value> stored(values);
  if (storage != elem)
    for (Value &v : stored)
      v = isa<FloatType>(elem) ? Value(arith::BitcastOp::create(b, loc, storage, v))
                               : Value(arith::ExtUIOp::create(b, loc, storage, v));
  return pack(b, loc, type, stored);
}

SmallVector<Value> mlir::tileir::fromMemory(OpBuilder &b, Location loc, Value raw, Type elem,
                                            int64_t count) {
  Type type = memoryType(elem, count);
  if (raw.getType() != type)
    raw = LLVM::BitcastOp::create(b, loc, type, raw);
  SmallVector<Value> out = unpack(b, loc, raw);
  Type storage = getElementTypeOrSelf(type);
  if (storage != elem)
    for (Value &v : out)
      v = isa<FloatType>(elem) ? Value(arith::BitcastOp::create(b, loc, elem, v))
                               : Value(arith::TruncIOp::create(b, loc, elem, v));
  return out;
}
