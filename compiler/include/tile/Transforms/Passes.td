//===- Passes.td - tile compiler passes --------------------*- tablegen -*-===//
#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToHost : Pass<"tile-convert-to-host", "ModuleOp"> {
  let summary = "Lower tile ops for the host CPU: tensors + linalg, pointers as i64 addresses";
  let description = [{
    Rewrites every `tile.kernel` function for execution on the host CPU. Tile
    ops become `linalg`/`tensor` ops on tensors (bufferized later by the
    upstream one-shot bufferizer), pointers become i64 addresses accessed
    with `llvm.load`/`llvm.store`, masked accesses become `scf.if`, and the
    program ids and grid size become six trailing i32 arguments
    (pid x, y, z, then num_programs x, y, z).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ExpandMath : Pass<"tile-expand-math", "ModuleOp"> {
  let summary = "Expand transcendental math into arithmetic, the same on every target";
  let description = [{
    Rewrites erf, erfc, tanh, exp, exp2, log and log2 into polynomial
    approximations built from arith ops (MLIR's math approximations), so the
    host, NVPTX and AMDGPU builds of a kernel compute the same values and no
    target needs a device math library. sqrt and rsqrt stay: every target
    has a correctly rounded square root.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // TILE_TRANSFORMS_PASSES_TD
