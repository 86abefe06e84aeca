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

def ConvertTileToGPU : Pass<"tile-convert-to-gpu", "ModuleOp"> {
  let summary = "Distribute tiles over the threads of a GPU workgroup";
  let description = [{
    Gives every 1-D tile of S elements a blocked layout over the workgroup's
    T = warp size (32 NVIDIA, 64 AMD) * num-warps threads (each thread holds
    R = max(1, S / T) elements in runs of up to `vector-width`, element (t, r)
    = ((r / v) * T * v + t * v + r % v) mod S) and rewrites the kernel into
    per-thread vector code:
    loads and stores are vectorised up to 16 bytes where AxisInfo proves
    contiguity, alignment and mask constancy; reductions combine registers,
    then lanes by butterfly shuffles, then warps through shared memory.
    Pointers become i64 addresses. The target's thread/program ids, shuffles
    and barriers come from GPUTargetInfo. Records the shared memory it uses
    as the `tile.shared_bytes` attribute of the kernel.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"sm_90a\"", "GPU target name">,
    Option<"numWarps", "num-warps", "unsigned", "4", "warps per program">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def ExpandFP8 : Pass<"tile-expand-fp8", "ModuleOp"> {
  let summary = "Decode fp8 values with integer arithmetic";
  let description = [{
    Rewrites `arith.extf` from f8E4M3FN and f8E5M2 into integer bit
    manipulation that builds the f32 value (then extends or truncates to the
    requested type), so every target can read fp8 data without fp8 hardware
    or LLVM fp8 types. With `fnuz`, f8E4M3FN data is decoded as e4m3fnuz
    (bias 8, NaN = 0x80, no negative zero): what AMD gfx942 stores. f8E5M2 is
    OCP e5m2 on every target. Conversions to fp8 are reported as unsupported.
  }];
  let options = [
    Option<"fnuz", "fnuz", "bool", "false", "decode e4m3 as e4m3fnuz (gfx942)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ExpandMath : Pass<"tile-expand-math", "ModuleOp"> {
  let summary = "Expand transcendental math into arithmetic, the same on every target";
  let description = [{
    Rewrites erf, erfc, tanh, exp, exp2, log and log2 into polynomial
    approximations built from arith ops (MLIR's math approximations), so the
    host, NVPTX and AMDGPU builds of a kernel compute the same values and no
    target needs a device math library. sqrt and rsqrt stay: every target
    has a correctly rounded square root. The approximations apply to f32
    scalars and vectors, so targets run it after tiles became per-thread
    values (GPU) or scalar loops (host).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // TILE_TRANSFORMS_PASSES_TD
