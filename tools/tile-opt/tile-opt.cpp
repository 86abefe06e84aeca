//===- tile-opt.cpp - MlirOptMain driver for the tile dialect -------------===//
#include "tile/Dialect/TileDialect.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tileir::registerTileDialects(registry);
  // The GPU lowering builds NVVM/ROCDL ops through the target info.
  registry.insert<mlir::NVVM::NVVMDialect, mlir::ROCDL::ROCDLDialect, mlir::LLVM::LLVMDialect,
                  mlir::vector::VectorDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::tileir::registerTilePasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile dialect optimizer\n", registry));
}
