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

def AssignLayouts : Pass<"tile-assign-layouts", "ModuleOp"> {
  let summary = "Give every tile of a GPU kernel a #tile.dist layout";
  let description = [{
    Sets the encoding of every tile value in `tile.kernel` functions to a
    `#tile.dist` layout (TileAttrs.td) for `num-warps` warps of the target's
    warp size. Tiles start blocked: runs of 16 bytes of the kernel's
    narrowest accessed element per thread, the last dimension fastest, then
    lanes, then warps. Loads take their pointers' layout, reductions keep
    their source's threads (the reduced dimension dropped), broadcasts ask
    for their source in the layout that makes them register copies. Where a
    value's layout differs from what its user needs, ranges, splats,
    constants and integer arithmetic on them (but divisions by run-time
    values) are recomputed in the needed layout, and so are decode chains of
    short-run loads; in addresses and shift amounts, index-table loads and
    such divisions are converted once and the arithmetic on them redone (in
    shift amounts a loop's carried values too); other values go through
    `tile.convert_layout`. Refuses tiles needing more than 1024 registers
    per thread. Records the thread count as `tile.threads` on the kernel.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"sm_90a\"", "GPU target name">,
    Option<"numWarps", "num-warps", "unsigned", "4", "warps per program">,
  ];
  let dependentDialects = ["::mlir::tileir::TileDialect"];
}

def PipelineLoads : Pass<"tile-pipeline-loads", "ModuleOp"> {
  let summary = "Stage the loads of `num_stages` loops through shared-memory ring buffers";
  let description = [{
    For a laid-out loop with `tile.num_stages` = S >= 2, every tile load in
    its body (outside nested loops) whose pointers and mask are computed from
    the induction variable and values defined before the loop becomes a
    ring buffer of S tiles (tile.stage_buffer): S - 1 iterations are copied
    ahead of the loop, and each iteration waits for its own tile
    (tile.async_wait), starts the copy for iteration i + S - 1
    (tile.async_copy, masked past the loop's end) and reads its tile where it
    is used (tile.stage_read, inside the branch that uses it, in the layout
    its user wants, so a following layout conversion disappears). Loads whose
    address depends on other loads or on carried values are left alone. With
    bulk-copies, a loop's only staged load whose stage is one contiguous,
    16-byte aligned run is copied a stage at a time by one bulk copy
    (tile.stage_bulk), each iteration waiting on its stage's barrier
    (tile.stage_wait).
  }];
  let options = [
    Option<"bulkCopies", "bulk-copies", "bool", "false",
           "copy a stage that is one contiguous, 16-byte aligned run with one bulk copy "
           "(NVIDIA sm_90: cp.async.bulk) where the loop stages one load">,
  ];
  let dependentDialects = ["::mlir::tileir::TileDialect", "::mlir::arith::ArithDialect"];
}

def AllocateShared : Pass<"tile-allocate-shared", "ModuleOp"> {
  let summary = "Place the shared-memory / LDS buffers of laid-out GPU kernels";
  let description = [{
    Gives every op that exchanges data through shared memory (layout
    conversions between threads, reductions across warps) a byte offset
    (`tile.shared_offset`) in one per-kernel buffer. Buffers live over the
    ops that use them; buffers whose lifetimes do not overlap share bytes
    (largest first, lowest free 16-byte-aligned offset). The kernel's total
    becomes its `tile.shared_bytes`: the number the budget check and the
    launch use.
  }];
}

def GuardIntegerDivision : Pass<"tile-guard-integer-division", "ModuleOp"> {
  let summary = "Keep run-time integer division from trapping on the host CPU";
  let description = [{
    Replaces the divisor of every `arith.divsi`, `arith.divui`,
    `arith.remsi` and `arith.remui` (scalars and vectors) by 1 where it is 0
    and, for the signed ones, where the quotient of the type's minimum by -1
    would overflow: x / 0 = x, x % 0 = 0, MIN / -1 = MIN, MIN % -1 = 0.
    x86's integer division traps on those (SIGFPE), which would take the
    host application down with a kernel given bad arguments. Constant
    divisors other than 0 (and -1 when signed) are left alone. Runs after
    `arith-expand` (which lowers ceildiv and floordiv to these four ops).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def SaturateFloatToInt : Pass<"tile-saturate-float-to-int", "ModuleOp"> {
  let summary = "Give float-to-integer conversions on the host CPU defined results";
  let description = [{
    Rewrites every `arith.fptosi` and `arith.fptoui` (scalars and vectors) so
    that a value past the integer type's range gives its minimum or maximum
    and NaN gives 0, instead of LLVM's poison (x86 returns the type's minimum
    for both; the PTX ISA's cvt saturates, NaN to 0): the conversion itself
    stays for values in range, and selects on comparisons with the range's
    bounds (as the float type rounds them) pick the saturated results.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ConvertTileToGPU : Pass<"tile-convert-to-gpu", "ModuleOp"> {
  let summary = "Distribute laid-out tiles over the threads of a GPU workgroup";
  let description = [{
    Rewrites kernels whose tiles carry `#tile.dist` layouts (run
    tile-assign-layouts and tile-allocate-shared first) into per-thread
    vector code: a tile becomes the vector of the registers its layout gives
    a thread. Loads and stores are vectorised up to 16 bytes where the
    layout keeps elements consecutive in registers and AxisInfo proves
    contiguity, alignment and mask constancy; reductions combine registers,
    then lanes by butterfly shuffles, then warps through shared memory;
    broadcasts and expand_dims move registers; layout conversions that
    keep every element in its warp move registers, select among a thread's
    own and shuffle across lanes (shfl.sync.idx, ds_bpermute), others go
    through shared memory at the offsets the allocation gave. Pointers
    become i64 addresses. The target's thread/program ids, shuffles and
    barriers come from GPUTargetInfo.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"sm_90a\"", "GPU target name">,
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
    Rewrites erf, erfc, tanh, exp, log and log2 into polynomial
    approximations built from arith ops, so the host, NVPTX and AMDGPU
    builds of a kernel compute the same values and no target needs a device
    math library: MLIR's math approximations, except erfc, which has a
    cheaper expansion of its own (ExpandMath.cpp: a polynomial for
    |x| < 0.75, t * 2^(G(t) - x^2 log2 e) with t = 1 / (1 + |x|/2) beyond).
    With `native-exp2` the power of two inside erfc's expansion stays a
    math.exp2 for the target's instruction (NVPTX: ex2.approx, 2 ulp), else
    it is a polynomial too. The kernel's own exp2 is left to each target's
    exp2 (NVPTX: ex2.approx; AMDGPU: v_exp_f32; the host: LLVM's exp2f), the
    one operation whose values may differ between targets. sqrt and rsqrt
    stay: every target has a correctly rounded square root. The
    approximations apply to f32 scalars and vectors, so targets run it after
    tiles became per-thread values (GPU) or scalar loops (host).
  }];
  let options = [
    Option<"nativeExp2", "native-exp2", "bool", "false",
           "leave erfc's power of two to the target's exp2 instruction">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // TILE_TRANSFORMS_PASSES_TD
