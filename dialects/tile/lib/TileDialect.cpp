//===- TileDialect.cpp - tile dialect registration ------------------------===//
#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tileir;

#include "tile/Dialect/TileDialect.cpp.inc"
#include "tile/Dialect/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/TileAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/TileOps.cpp.inc"
      >();
}

Type mlir::getElementTypeOrSelf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

/// Folds of tile ops produce constants of builtin types: arith.constant.
Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                            Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value))
    if (arith::ConstantOp::isBuildableWith(typed, type))
      return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}

Type mlir::tileir::getSameShape(Type like, Type element) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return RankedTensorType::get(tensor.getShape(), element, tensor.getEncoding());
  if (auto vector = dyn_cast<VectorType>(like))
    return VectorType::get(vector.getShape(), element);
  return element;
}

//===----------------------------------------------------------------------===//
// #tile.dist
//===----------------------------------------------------------------------===//

Attribute DistributedLayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> lists[3];
  const char *names[3] = {"reg", "lane", "warp"};
  if (parser.parseLess())
    return {};
  for (int i = 0; i < 3; ++i) {
    if ((i && parser.parseComma()) || parser.parseKeyword(names[i]) || parser.parseEqual() ||
        parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
          return parser.parseInteger(lists[i].emplace_back());
        }))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return DistributedLayoutAttr::get(parser.getContext(), lists[0], lists[1], lists[2]);
}

void DistributedLayoutAttr::print(AsmPrinter &printer) const {
  const char *names[3] = {"reg", "lane", "warp"};
  ArrayRef<int64_t> lists[3] = {getReg(), getLane(), getWarp()};
  printer << "<";
  for (int i = 0; i < 3; ++i) {
    printer << (i ? ", " : "") << names[i] << " = [";
    llvm::interleaveComma(lists[i], printer);
    printer << "]";
  }
  printer << ">";
}

LogicalResult
DistributedLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                      function_ref<InFlightDiagnostic()> emitError) const {
  int64_t bits = 0;
  for (int64_t dim : shape) {
    if (dim <= 0 || !llvm::isPowerOf2_64(dim))
      return emitError() << "#tile.dist needs power-of-two dimensions, got " << dim;
    bits += llvm::Log2_64(dim);
  }
  SmallVector<int> seen(bits, 0);
  for (ArrayRef<int64_t> list : {getReg(), getLane(), getWarp()})
    for (int64_t b : list) {
      if (b == -1 && list.data() != getReg().data())
        continue;
      if (b < 0 || b >= bits)
        return emitError() << "#tile.dist bit " << b << " is outside the " << bits
                           << " index bits of the shape";
      ++seen[b];
    }
  for (int64_t b = 0; b < bits; ++b)
    if (seen[b] != 1)
      return emitError() << "#tile.dist names index bit " << b << " " << seen[b]
                         << " times; every bit needs exactly one owner";
  return success();
}

int64_t DistributedLayoutAttr::registerIndex(int64_t r) const {
  int64_t index = 0;
  for (auto [i, bit] : llvm::enumerate(getReg()))
    if (r & (int64_t(1) << i))
      index |= int64_t(1) << bit;
  return index;
}

int64_t DistributedLayoutAttr::registerOf(int64_t index) const {
  int64_t r = 0;
  for (auto [i, bit] : llvm::enumerate(getReg()))
    if (index & (int64_t(1) << bit))
      r |= int64_t(1) << i;
  assert(registerIndex(r) == index && "index holds bits that are not register bits");
  return r;
}
