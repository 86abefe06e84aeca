//===- NVPTXConvert.cpp - fp8 to f16 pairs with cvt.rn.f16x2.e4m3x2 -------===//
//
// tile-expand-fp8 decodes an fp8 value with about twenty integer and float
// instructions. sm_89 and newer convert two fp8 values (one 16-bit register)
// into two f16 values (one 32-bit register) with one instruction (PTX ISA
// 7.8+, "Data Movement and Conversion Instructions: cvt":
// cvt.rn.f16x2.e4m3x2 and cvt.rn.f16x2.e5m2x2; the value from the upper
// byte lands in the upper half). This pass uses it on consecutive elements,
// which are what a thread's registers usually hold.
//
// Exactness, code by code, against tile-expand-fp8 (the definition: OCP
// e4m3fn and e5m2 decoded exactly; the expansion's NaN is the default quiet
// NaN of the result type):
//  - Every finite e4m3fn value (magnitudes 2^-9 .. 448, at most 4
//    significant bits) and every finite e5m2 value (2^-16 .. 57344, at most 3
//    significant bits), and e5m2's infinities, is an f16 value: f16 has 11
//    significant bits, normals from 2^-14, subnormals down to 2^-24 and a
//    largest finite 65504. A conversion rounding to nearest (.rn) of a value
//    the destination holds is that value, so cvt is exact there, signed
//    zeros included (e5m2 is even the upper byte of an f16).
//  - f16 -> f32 / f64 is exact (arith.extf); f16 -> f32 -> bf16 is exact
//    too, as bf16 (8 significant bits, f32's exponent range) holds every
//    fp8 value.
//  - NaN codes (e4m3fn: 0x7f, 0xff; e5m2: exponent 31, mantissa != 0) give
//    a NaN whose bits are the hardware's (NVIDIA's cuda_fp8.hpp emulates
//    the instruction with 0x7fff, sign dropped), not the expansion's: so
//    where the result is NaN, a select puts the default quiet NaN of the
//    result type (f32 0x7fc00000, f16 0x7e00, bf16 0x7fc0, f64
//    0x7ff8000000000000) in its place, and the result is then bit-identical
//    to the expansion for all 256 codes of both formats. The select is left
//    out when the values reach only float arithmetic and comparisons
//    (through ops that move elements unchanged), as an fp8 key in a dot
//    product does: what such a user makes of a NaN operand is a NaN whose
//    bits neither LLVM (LangRef, "Behavior of Floating-Point NaN values")
//    nor the expansion path defines, so no result the compiler promises
//    can differ.
//
// tests/gpu (layout-gpu, kernel fp8_codes) checks all 256 codes of each
// format, to f32, f16 and bf16, on the GPU; the host runs the same check on
// the expansion.
//
//===----------------------------------------------------------------------===//
#include "NVPTXConvert.h"

#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tileir;

bool mlir::tileir::hasFP8PairConversion(const NVPTXChip &chip) {
  StringRef name = chip.name;
  unsigned sm = 0;
  if (!name.consume_front("sm_"))
    return false;
  name.consumeInteger(10, sm);
  return sm >= 89;
}

namespace {

/// Whether the conversion's result reaches only users that make a NaN with
/// bits of their own (float arithmetic, mma.sync) or look at NaN-ness (compares),
/// through ops that move elements unchanged (the layout code's extracts,
/// inserts, broadcasts and shuffles).
bool onlyArithmeticUsers(Value result) {
  SmallVector<Value> work{result};
  llvm::SmallPtrSet<Operation *, 32> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::CmpFOp,
              math::FmaOp, NVVM::MmaOp>(user))
        continue;
      if (!isa<vector::ExtractOp, vector::ExtractStridedSliceOp, vector::FromElementsOp,
               vector::BroadcastOp, vector::ShuffleOp, vector::InsertOp,
               vector::InsertStridedSliceOp, vector::ShapeCastOp>(user))
        return false;
      work.push_back(user->getResult(0));
    }
  }
  return true;
}

/// Element `i` of `v` (0 for a scalar) where it is a compile-time integer
/// (the module is canonicalized first, so constants are folded).
std::optional<int64_t> constantElement(Value v, int64_t i) {
  APInt scalar;
  if (matchPattern(v, m_ConstantInt(&scalar)))
    return scalar.getSExtValue();
  DenseIntElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.isSplat() ? attr.getSplatValue<APInt>().getSExtValue()
                          : (*(attr.value_begin<APInt>() + i)).getSExtValue();
  return std::nullopt;
}

/// Elements i and i + 1 of `bytes` (i8) as one i16 where they are bytes s / 8
/// and s / 8 + 1 of one i32, as the layout code makes them: trunci of
/// ((from_elements(..., x, x, ...) >> [.., s, s + 8, ..]) & [.., 255, 255, ..]);
/// the i16 is then x >> s, and no byte is taken apart and put back together.
std::optional<Value> bytePair(OpBuilder &b, Location loc, Value bytes, int64_t i) {
  auto trunc = bytes.getDefiningOp<arith::TruncIOp>();
  if (!trunc || !getElementTypeOrSelf(trunc.getIn().getType()).isInteger(32))
    return std::nullopt;
  Value v = trunc.getIn();
  if (auto mask = v.getDefiningOp<arith::AndIOp>()) {
    auto m0 = constantElement(mask.getRhs(), i), m1 = constantElement(mask.getRhs(), i + 1);
    if (!m0 || !m1 || (*m0 & 255) != 255 || (*m1 & 255) != 255)
      return std::nullopt;
    v = mask.getLhs();
  }
  Value words, amounts;
  if (auto shift = v.getDefiningOp<arith::ShRSIOp>())
    words = shift.getLhs(), amounts = shift.getRhs();
  else if (auto shift = v.getDefiningOp<arith::ShRUIOp>())
    words = shift.getLhs(), amounts = shift.getRhs();
  else
    return std::nullopt;
  auto s0 = constantElement(amounts, i), s1 = constantElement(amounts, i + 1);
  auto from = words.getDefiningOp<vector::FromElementsOp>();
  if (!from || !s0 || !s1 || *s1 != *s0 + 8 || *s0 % 8 || *s0 < 0 || *s0 > 16 ||
      from.getElements()[i] != from.getElements()[i + 1])
    return std::nullopt;
  Value x = from.getElements()[i];
  Value amount = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(*s0)));
  Value half = arith::TruncIOp::create(b, loc, b.getI16Type(),
                                       arith::ShRUIOp::create(b, loc, x, amount));
  Value one = vector::FromElementsOp::create(b, loc, VectorType::get({1}, b.getI16Type()),
                                             ValueRange{half});
  return vector::BitCastOp::create(b, loc, VectorType::get({2}, b.getI8Type()), one).getResult();
}

/// `src` (f8E4M3FN or f8E5M2: a scalar or a 1-D vector) as f16, converted
/// pairwise: elements 2i and 2i + 1 are the lower and upper byte of one cvt.
Value convertToF16(OpBuilder &b, Location loc, Value src, Type f8) {
  Type i8 = b.getI8Type(), f16 = b.getF16Type();
  auto pairI8 = VectorType::get({2}, i8);
  auto pairF16 = VectorType::get({2}, f16);
  auto cvt = [&](Value pair) -> Value {
    return NVVM::ConvertF8x2ToF16x2Op::create(b, loc, pairF16, pair, b.getBoolAttr(false),
                                              TypeAttr::get(f8));
  };
  Value zero = arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0));
  auto vec = dyn_cast<VectorType>(src.getType());
  if (!vec) {
    Value bits = arith::BitcastOp::create(b, loc, i8, src);
    Value pair = vector::FromElementsOp::create(b, loc, pairI8, ValueRange{bits, zero});
    return vector::ExtractOp::create(b, loc, cvt(pair), ArrayRef<int64_t>{0});
  }
  int64_t n = vec.getNumElements();
  Value bits = arith::BitcastOp::create(b, loc, VectorType::get({n}, i8), src);
  auto integer = src.getDefiningOp<arith::BitcastOp>();
  auto resultType = VectorType::get({n}, f16);
  Value result = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(resultType, b.getFloatAttr(f16, 0.0)));
  for (int64_t i = 0; i + 1 < n; i += 2) {
    std::optional<Value> joined;
    if (integer)
      joined = bytePair(b, loc, integer.getIn(), i);
    Value pair = joined ? *joined
                        : vector::ExtractStridedSliceOp::create(b, loc, bits, ArrayRef<int64_t>{i},
                                                                ArrayRef<int64_t>{2},
                                                                ArrayRef<int64_t>{1})
                              .getResult();
    result = vector::InsertStridedSliceOp::create(b, loc, cvt(pair), result,
                                                  ArrayRef<int64_t>{i}, ArrayRef<int64_t>{1});
  }
  if (n % 2) {
    Value last = vector::ExtractOp::create(b, loc, bits, ArrayRef<int64_t>{n - 1});
    Value pair = vector::FromElementsOp::create(b, loc, pairI8, ValueRange{last, zero});
    Value half = vector::ExtractOp::create(b, loc, cvt(pair), ArrayRef<int64_t>{0});
    result = vector::InsertOp::create(b, loc, half, result, ArrayRef<int64_t>{n - 1});
  }
  return result;
}

void rewrite(arith::ExtFOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f8 = getElementTypeOrSelf(op.getIn().getType());
  Type resultType = op.getType();
  auto resultElem = cast<FloatType>(getElementTypeOrSelf(resultType));
  auto like = [&](Type elem) { return tileir::getSameShape(resultType, elem); };
  Value value = convertToF16(b, loc, op.getIn(), f8);
  if (resultElem.isBF16())
    value = arith::TruncFOp::create(
        b, loc, resultType, arith::ExtFOp::create(b, loc, like(b.getF32Type()), value));
  else if (!resultElem.isF16())
    value = arith::ExtFOp::create(b, loc, resultType, value);
  if (!onlyArithmeticUsers(op.getResult())) {
    Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, value, value);
    TypedAttr nan = b.getFloatAttr(resultElem, APFloat::getQNaN(resultElem.getFloatSemantics()));
    if (auto shaped = dyn_cast<ShapedType>(resultType))
      nan = DenseElementsAttr::get(shaped, nan);
    value = arith::SelectOp::create(b, loc, isNaN, arith::ConstantOp::create(b, loc, nan), value);
  }
  op.replaceAllUsesWith(value);
  op.erase();
}

struct NVPTXExtendFP8 : PassWrapper<NVPTXExtendFP8, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NVPTXExtendFP8)
  StringRef getArgument() const override { return "tile-nvptx-extend-fp8"; }
  StringRef getDescription() const override {
    return "Extend fp8 pairs with cvt.rn.f16x2.e4m3x2 / e5m2x2 (NVIDIA sm_89+)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, NVVM::NVVMDialect, vector::VectorDialect>();
  }
  void runOnOperation() override {
    auto collect = [&] {
      SmallVector<arith::ExtFOp> work;
      getOperation()->walk([&](arith::ExtFOp op) {
        Type src = op.getIn().getType();
        auto vec = dyn_cast<VectorType>(src);
        if (isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(src)) &&
            (!vec || (vec.getRank() == 1 && !vec.isScalable())))
          work.push_back(op);
      });
      return work;
    };
    if (collect().empty())
      return;
    // Folded first, so that bytePair sees the layout code's shift amounts as
    // constants (only where there are conversions: the others keep their
    // compile time).
    OpPassManager fold(ModuleOp::getOperationName());
    fold.addPass(createCanonicalizerPass());
    if (failed(runPipeline(fold, getOperation())))
      return signalPassFailure();
    for (arith::ExtFOp op : collect())
      rewrite(op);
  }
};

} // namespace

std::unique_ptr<Pass> mlir::tileir::createNVPTXExtendFP8Pass() {
  return std::make_unique<NVPTXExtendFP8>();
}
