//===- NVPTXMatrix.cpp - mma.sync fragments and wgmma for dot --------------===//
//
// wgmma (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
// a warpgroup (4 consecutive warps) multiplies its m64 x k A fragment,
// held in registers as 4 mma.sync m16 x k fragments (warp w of the group
// holds rows 16 w ...), by a k x N B tile read from shared memory through a
// matrix descriptor, into m64 x N f32 accumulators laid out as mma.sync's
// m16n8 tiles repeated along N. B is staged K-major with the 128-byte
// swizzle: for every 128 bytes of K, n rows of 128 bytes whose 16-byte chunk
// c sits at chunk c ^ (row % 8). Descriptor: start address >> 4 (bits 0-13),
// leading byte offset >> 4 (16-29, unused with this swizzle), stride byte
// offset >> 4 (32-45: 1024, eight rows), swizzle mode (62-63: 1 = 128 B).
//
//===----------------------------------------------------------------------===//
#include "NVPTXMatrix.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tileir;
using nvptx::i32;

Value nvptx::i32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

namespace {

constexpr int64_t kSwizzleBytes = 128;
constexpr int64_t kWarpSizeLog2 = 5;

bool isFP8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// Byte offset of B's element `index` (row-major over [k, n]) in the
/// staging buffer. It is linear over GF(2) in the index bits: the offset of
/// an index is the XOR of the offsets of its bits.
int64_t stagedOffset(int64_t index, int64_t n, int64_t elemBytes) {
  int64_t ln = llvm::Log2_64(n);
  int64_t row = index & (n - 1), byte = (index >> ln) * elemBytes;
  return byte / kSwizzleBytes * n * kSwizzleBytes + row * kSwizzleBytes +
         ((((byte >> 4) & 7) ^ (row & 7)) << 4) + (byte & 15);
}

/// Bit `bit` of `tid` times `weight`.
Value threadBit(OpBuilder &b, Location loc, Value tid, int64_t bit, int64_t weight) {
  Value v = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, tid, i32(b, loc, bit)),
                                  i32(b, loc, 1));
  return arith::MulIOp::create(b, loc, v, i32(b, loc, weight));
}

/// The warpgroup's instruction width N: the columns one warpgroup covers in
/// one instruction (`wn` warpgroups side by side along N).
int64_t instructionN(int64_t n, int64_t numWarps, int64_t wm) {
  return std::clamp<int64_t>(n / (numWarps / wm), 8, 256);
}

Value inlineAsm(OpBuilder &b, Location loc, Type result, ValueRange operands,
                StringRef text, StringRef constraints) {
  return LLVM::InlineAsmOp::create(b, loc, result, operands, b.getStringAttr(text),
                                   b.getStringAttr(constraints), b.getUnitAttr(), UnitAttr(),
                                   LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

/// Stages B: each thread stores its elements, runs of consecutive K in one
/// store (up to a 16-byte chunk), at their swizzled places, fences them for
/// the async proxy, and the workgroup synchronises.
void stageB(OpBuilder &b, Location loc, Type elem, int64_t n, DistributedLayoutAttr lb,
            ArrayRef<Value> bRegs, Value shared, Value tid) {
  bool fp8 = isFP8(elem);
  int64_t eb = fp8 ? 1 : 2, ln = llvm::Log2_64(n);
  Value mine = i32(b, loc, 0);
  auto addThreadBits = [&](ArrayRef<int64_t> bits, int64_t first) {
    for (auto [j, bit] : llvm::enumerate(bits))
      if (bit >= 0)
        mine = arith::XOrIOp::create(b, loc, mine,
                                     threadBit(b, loc, tid, first + int64_t(j),
                                               stagedOffset(int64_t(1) << bit, n, eb)));
  };
  addThreadBits(lb.getLane(), 0);
  addThreadBits(lb.getWarp(), kWarpSizeLog2);
  int64_t runBits = 0;
  while (runBits < int64_t(lb.getReg().size()) && lb.getReg()[runBits] == ln + runBits)
    ++runBits;
  int64_t run = std::min<int64_t>(int64_t(1) << runBits, 16 / eb);
  Type memElem = fp8 ? b.getI8Type() : elem;
  for (int64_t r = 0; r < int64_t(bRegs.size()); r += run) {
    SmallVector<Value> elems;
    for (Value v : bRegs.slice(r, run))
      elems.push_back(fp8 ? Value(arith::BitcastOp::create(b, loc, memElem, v)) : v);
    Value value = run == 1 ? elems[0]
                           : Value(vector::FromElementsOp::create(
                                 b, loc, VectorType::get({run}, memElem), elems));
    Value offset = arith::XOrIOp::create(b, loc, mine,
                                         i32(b, loc, stagedOffset(lb.registerIndex(r), n, eb)));
    Value ptr = LLVM::GEPOp::create(b, loc, shared.getType(), b.getI8Type(), shared,
                                    ValueRange{offset});
    LLVM::StoreOp::create(b, loc, value, ptr, run * eb);
  }
  nvptx::asyncProxyFence(b, loc);
  NVVM::Barrier0Op::create(b, loc);
}

} // namespace

Fragment nvptx::mmaAFragment(bool fp8) {
  FragmentBit r0{true, 0}, r1{true, 1}, r2{true, 2}, r3{true, 3};
  FragmentBit c0{false, 0}, c1{false, 1}, c2{false, 2}, c3{false, 3}, c4{false, 4};
  if (fp8)
    return {{c0, c1, r3, c4}, {c2, c3, r0, r1, r2}};
  return {{c0, r3, c3}, {c1, c2, r0, r1, r2}};
}

std::pair<int64_t, int64_t> nvptx::mmaAElement(bool fp8, int64_t i) {
  if (fp8)
    return {8 * ((i >> 2) & 1), (i & 3) + 16 * ((i >> 3) & 1)};
  return {8 * ((i >> 1) & 1), (i & 1) + 8 * ((i >> 2) & 1)};
}

Value nvptx::operandWord(OpBuilder &b, Location loc, Type elem, ArrayRef<Value> elems) {
  if (!isFP8(elem)) {
    Value v = vector::FromElementsOp::create(b, loc, VectorType::get({2}, elem), elems);
    return isa<BFloat16Type>(elem) ? Value(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v))
                                   : v;
  }
  SmallVector<Value> bytes;
  for (Value e : elems)
    bytes.push_back(arith::BitcastOp::create(b, loc, b.getI8Type(), e));
  Value v = vector::FromElementsOp::create(b, loc, VectorType::get({4}, b.getI8Type()), bytes);
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}

bool nvptx::wgmmaLayouts(MLIRContext *ctx, Type elem, int64_t m, int64_t n, int64_t k,
                         int64_t numWarps, DotLayouts &out) {
  bool fp8 = isFP8(elem);
  int64_t eb = fp8 ? 1 : 2, ik = fp8 ? 32 : 16;
  if (m % 64 || numWarps % 4 || (k * eb) % kSwizzleBytes || n % 8)
    return false;
  int64_t wm = std::min(numWarps, m / 16);
  int64_t instN = instructionN(n, numWarps, wm);
  int64_t wn = std::min(numWarps / wm, n / instN);
  if (m / (16 * wm) * (n / (instN * wn)) * instN / 2 > 128)
    return false; // more accumulators than one wait can hold
  int64_t logN = llvm::Log2_64(instN), logK = llvm::Log2_64(ik);
  // Accumulators: mma.sync's m16n8 C fragment, its registers repeating along N.
  Fragment c{{{false, 0}, {true, 3}}, {{false, 1}, {false, 2}, {true, 0}, {true, 1}, {true, 2}}};
  for (int64_t bit = 3; bit < logN; ++bit)
    c.reg.push_back({false, bit});
  // B is never in registers for the instruction; any complete fragment will do.
  Fragment bFrag;
  for (int64_t bit = 0; bit < logN + logK; ++bit) {
    FragmentBit f = bit < logN ? FragmentBit{false, bit} : FragmentBit{true, bit - logN};
    (bit < kWarpSizeLog2 ? bFrag.lane : bFrag.reg).push_back(f);
  }
  MatrixInstruction inst{16, instN, ik, mmaAFragment(fp8), bFrag, c};
  out = buildDotLayouts(ctx, inst, m, n, k, numWarps);
  out.b = Attribute();
  out.sharedBytes = n * k * eb;
  out.sharedAlignment = 1024; // the swizzle repeats every 8 rows of 128 bytes
  return true;
}

SmallVector<Value> nvptx::lowerWgmma(OpBuilder &b, Location loc, Type elem, int64_t m, int64_t n,
                                     int64_t k, const DotLayouts &layouts, ArrayRef<Value> a,
                                     ArrayRef<Value> bRegs, ArrayRef<Value> acc, Value shared,
                                     bool bInShared, Value tid) {
  auto la = cast<DistributedLayoutAttr>(layouts.a), lb = cast<DistributedLayoutAttr>(layouts.b),
       lc = cast<DistributedLayoutAttr>(layouts.acc);
  auto [wm, wn] = resultWarps(lc, n);
  bool fp8 = isFP8(elem);
  int64_t eb = fp8 ? 1 : 2, ik = fp8 ? 32 : 16, per = fp8 ? 4 : 2;
  int64_t ln = llvm::Log2_64(n), lk = llvm::Log2_64(k);
  // The warpgroup's column offset, and the instruction's width.
  Value column = i32(b, loc, 0);
  int64_t instN = std::min<int64_t>(n, 256);
  for (auto [w, bit] : llvm::enumerate(lc.getWarp()))
    if (bit >= 0 && bit < ln) {
      instN = std::min(instN, int64_t(1) << bit);
      column = arith::OrIOp::create(
          b, loc, column, threadBit(b, loc, tid, kWarpSizeLog2 + int64_t(w), int64_t(1) << bit));
    }

  if (!bInShared)
    stageB(b, loc, elem, n, lb, bRegs, shared, tid);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);

  // One chain of wgmma per (row block, column block) of the warpgroup.
  Type i64 = b.getI64Type();
  Value base = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), shared);
  base = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, column, i32(b, loc, kSwizzleBytes)));
  Value descBits = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(int64_t(1) << 16 | int64_t(1024 >> 4) << 32 | int64_t(1) << 62));
  std::string type = fp8 ? (isa<Float8E4M3FNType>(elem) ? "e4m3" : "e5m2")
                         : isa<BFloat16Type>(elem) ? "bf16"
                                                   : "f16";
  int64_t count = instN / 2; // accumulators per thread and instruction
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(count + 5) +
                     ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(instN) + "k" +
                     std::to_string(ik) + ".f32." + type + "." + type + " {";
  std::string constraints;
  for (int64_t i = 0; i < count; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=f,";
  }
  text += "}, {";
  for (int64_t i = 0; i < 4; ++i)
    text += (i ? ", $" : "$") + std::to_string(count + i);
  text += "}, $" + std::to_string(count + 4) + ", p, 1, 1" + (fp8 ? "" : ", 0") + ";\n}";
  constraints += "r,r,r,r,l,r";
  for (int64_t i = 0; i < count; ++i)
    constraints += "," + std::to_string(i);
  Type f32 = b.getF32Type();
  Type resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(count, f32));
  // fp8 sums start from zero in each dot (scale-d = 0 on the first step)
  // and join the accumulator in f32 afterwards (as DeepGEMM does every 128
  // of K): Hopper's tensor cores keep fewer bits than f32 when they
  // accumulate fp8 products (H200: up to 2^-11.8 of the sum of magnitudes
  // within one 128-deep dot, bench/RESULTS.md run 17).
  Value scaleD = i32(b, loc, fp8 ? 0 : 1), one = i32(b, loc, 1);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  SmallVector<Value> out(acc);
  if (fp8)
    out.assign(acc.size(), zero);
  for (int64_t mr = 0; mr < m / (16 * wm); ++mr)
    for (int64_t nr = 0; nr < n / (instN * wn); ++nr) {
      SmallVector<int64_t> regs;
      for (int64_t i = 0; i < count; ++i)
        regs.push_back(lc.registerOf(((mr * 16 * wm + 8 * ((i >> 1) & 1)) << ln) |
                                     (nr * instN * wn + 8 * (i >> 2) + (i & 1))));
      for (int64_t kr = 0; kr < k / ik; ++kr) {
        SmallVector<Value> av, operands;
        for (int64_t i = 0; i < 4 * per; ++i) {
          auto [dm, dk] = mmaAElement(fp8, i);
          av.push_back(a[la.registerOf(((mr * 16 * wm + dm) << lk) | (kr * ik + dk))]);
        }
        for (int64_t w = 0; w < 4; ++w)
          operands.push_back(operandWord(b, loc, elem, ArrayRef<Value>(av).slice(w * per, per)));
        int64_t byte = kr * ik * eb;
        Value start = arith::AddIOp::create(
            b, loc, base,
            i32(b, loc, byte / kSwizzleBytes * n * kSwizzleBytes +
                            nr * instN * wn * kSwizzleBytes + byte % kSwizzleBytes));
        Value field = arith::ShRUIOp::create(
            b, loc, arith::AndIOp::create(b, loc, start, i32(b, loc, 0x3FFFF)), i32(b, loc, 4));
        Value desc = arith::OrIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, field),
                                          descBits);
        operands.push_back(desc);
        operands.push_back(kr == 0 ? scaleD : one);
        for (int64_t reg : regs)
          operands.push_back(out[reg]);
        Value mma = inlineAsm(b, loc, resultType, operands, text, constraints);
        for (auto [i, reg] : llvm::enumerate(regs))
          out[reg] = LLVM::ExtractValueOp::create(b, loc, mma, ArrayRef<int64_t>{int64_t(i)});
      }
    }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // The accumulators pass through the wait, so nothing reads them earlier.
  std::string waitConstraints;
  for (size_t i = 0; i < out.size(); ++i)
    waitConstraints += "=f,";
  for (size_t i = 0; i < out.size(); ++i)
    waitConstraints += (i ? "," : "") + std::to_string(i);
  Value done = inlineAsm(
      b, loc, LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(out.size(), f32)),
      out, "wgmma.wait_group.sync.aligned 0;", waitConstraints);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = LLVM::ExtractValueOp::create(b, loc, done, ArrayRef<int64_t>{int64_t(i)});
  if (fp8)
    for (auto [sum, start] : llvm::zip(out, acc))
      sum = arith::AddFOp::create(b, loc, start, sum);
  // The staging buffer is free for the next op once every warpgroup is done
  // (a stage, once the next wait's barrier passes).
  if (!bInShared)
    NVVM::Barrier0Op::create(b, loc);
  return out;
}

void nvptx::asyncProxyFence(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}
