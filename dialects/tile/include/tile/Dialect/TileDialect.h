//===- TileDialect.h - tile dialect -----------------------------*- C++ -*-===//
#ifndef TILE_DIALECT_TILEDIALECT_H
#define TILE_DIALECT_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tile/Dialect/TileDialect.h.inc"
#include "tile/Dialect/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/TileOps.h.inc"

namespace mlir::tileir {
/// The same shape as `like` (scalar or tile) with element type `element`.
Type getSameShape(Type like, Type element);
} // namespace mlir::tileir

#endif // TILE_DIALECT_TILEDIALECT_H
