//===- Registration.cpp - dialects used by tile IR ------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

void mlir::tileir::registerTileDialects(DialectRegistry &registry) {
  registry.insert<TileDialect, arith::ArithDialect, func::FuncDialect, math::MathDialect,
                  scf::SCFDialect>();
}
