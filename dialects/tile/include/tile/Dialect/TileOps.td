//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tile/Dialect/TileBase.td"
include "tile/Dialect/TileAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program instance along a grid axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of program instances along a grid axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_RangeOp : Tile_Op<"range", [Pure]> {
  let summary = "1-D tile holding start, start + 1, ..., end - 1";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs 1DTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `to` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"element type matches the scalar", "result", "src",
                   "::llvm::cast<::mlir::ShapedType>($_self).getElementType()">]> {
  let summary = "tile with every element equal to a scalar";
  let arguments = (ins AnyType:$src);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "repeat size-1 dimensions of a tile";
  let arguments = (ins AnyStaticShapeTensor:$src);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "insert a size-1 dimension at `axis`";
  let arguments = (ins AnyStaticShapeTensor:$src, I32Attr:$axis);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$src `,` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by element offsets";
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tile_PtrCastOp : Tile_Op<"ptr_cast", [Pure]> {
  let summary = "reinterpret pointers as pointers to another element type";
  let description = [{
    The same addresses, typed with a new pointee: `(slot + 64).bitcast(f16)`
    reads the two bytes at a byte offset as an f16. Offsets added afterwards
    count elements of the new type.
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>]> {
  let summary = "load through a pointer or a tile of pointers, under an optional mask";
  let description = [{
    Lanes whose mask is false do not touch memory and take `other` (or an
    undefined value when `other` is absent).
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                       Optional<AnyType>:$other);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`,` `mask` $mask^ `:` type($mask))? (`,` `other` $other^ `:` type($other))? attr-dict
    `:` type($ptr) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store through a pointer or a tile of pointers, under an optional mask";
  let arguments = (ins Tile_PtrLike:$ptr, AnyType:$value, Optional<Tile_BoolLike>:$mask);
  let assemblyFormat = [{
    $ptr `,` $value (`,` `mask` $mask^ `:` type($mask))? attr-dict
    `:` type($ptr) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "add to an i32 in global memory once per program, returning the old value";
  let description = [{
    One read-modify-write per program (not per thread), at device scope,
    acquire-release: it comes after every store the program made before it
    and before every load it makes after it, so the program that sees the
    increments of others sees what they stored before them. Every thread
    of the program gets the old value.
  }];
  let arguments = (ins Tile_Ptr:$ptr, I32:$value);
  let results = (outs I32:$result);
  let assemblyFormat = "$ptr `,` $value attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

def Tile_GridDependencyWaitOp : Tile_Op<"gdc_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until the kernel launched before this one has finished";
  let description = [{
    A kernel launched with programmatic dependent launch (CUDA, sm_90 and
    later) may start while the kernel launched before it on the stream is
    still running: after this op, that kernel has finished and its stores
    are visible. Before it, a program must not read what that kernel writes
    nor write what it reads. Where launches do not overlap (the host, AMD
    GPUs, NVIDIA before sm_90, or a launch without the attribute) it does
    nothing.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_GridDependencyLaunchOp : Tile_Op<"gdc_launch_dependents",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "let the next kernel on the stream start launching";
  let description = [{
    Once every program of this kernel has run it (or exited), the kernel
    launched after it with programmatic dependent launch may start; that
    kernel's gdc_wait still waits for this one to finish. A no-op where
    launches do not overlap.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, SameOperandsAndResultElementType]> {
  let summary = "reduce a tile along one axis (sum, max or min)";
  let description = [{
    Reducing a 1-D tile gives a scalar; reducing an N-D tile removes `axis`.
    Floating-point max and min propagate NaN.
  }];
  let arguments = (ins AnyStaticShapeTensor:$src, I32Attr:$axis, Tile_ReduceKind:$kind);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $src `,` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product of two 2-D tiles (or batches of them) added to an f32 accumulator";
  let description = [{
    result[m, n] = acc[m, n] + sum_k a[m, k] * b[k, n], with a: [M, K] and
    b: [K, N] of one element type (f16, bf16, f8E4M3FN or f8E5M2) and acc,
    result: [M, N] f32. Products are exact in f32; the sum is accumulated in
    f32 (in the order the target's matrix instructions give). With 3-D
    tiles a: [B, M, K], b: [B, K, N] and acc: [B, M, N] it is B independent
    products, result[i] = acc[i] + a[i] b[i]; GPU targets give each batch
    element its own warps first (batchedDotLayouts).
  }];
  let arguments = (ins TensorRankOf<[F16, BF16, F8E4M3FN, F8E5M2], [2, 3]>:$a,
                       TensorRankOf<[F16, BF16, F8E4M3FN, F8E5M2], [2, 3]>:$b,
                       TensorRankOf<[F32], [2, 3]>:$acc);
  let results = (outs TensorRankOf<[F32], [2, 3]>:$result);
  let assemblyFormat = "$a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "view a tile's elements, in row-major order, with another shape";
  let description = [{
    The element at row-major position k of the source is the element at
    row-major position k of the result. On GPU targets it moves no data:
    layouts name bits of the row-major index, so the result keeps the
    source's layout.
  }];
  let arguments = (ins AnyStaticShapeTensor:$src);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "transpose a tile's last two dimensions";
  let description = [{
    result[j, i] = src[i, j] for a 2-D tile; result[b, j, i] = src[b, i, j]
    for a 3-D one (a batch of transposes). On GPU targets it moves no data:
    the result's layout is the source's with the roles of the last two
    dimensions swapped.
  }];
  let arguments = (ins TensorRankOf<[AnyType], [2, 3]>:$src);
  let results = (outs TensorRankOf<[AnyType], [2, 3]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "look up a small 1-D tile at integer indices";
  let description = [{
    result[i...] = table[indices[i...] mod N] for a table of N elements (a
    power of two): the index is taken modulo N, so no index reads outside
    the table. The result has the indices' shape and the table's element
    type. GPU targets keep the table in shared memory (LDS) for the lookups.
  }];
  let arguments = (ins 1DTensorOf<[AnyType]>:$table,
                       TensorOf<[AnySignlessInteger]>:$indices);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$table `,` $indices attr-dict `:` type($table) `,` type($indices) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_StageBufferOp : Tile_Op<"stage_buffer"> {
  let summary = "a shared-memory ring buffer of `stages` tiles for pipelined loads";
  let description = [{
    Made by tile-pipeline-loads for one load of a loop with `num_stages`:
    stage k holds the tile of iteration i with i mod stages == k. The result
    names the buffer for tile.async_copy, tile.async_wait and tile.stage_read; the allocation
    pass places `bytes` (stages x the tile's bytes, or x its live elements' with
    tile.stage_live: a gather table masked by range < C) for as long as a loop
    using it runs. A `swizzled` buffer holds tiles of 128-byte rows with the
    16-byte chunk c of row r at chunk c ^ (r mod 8), 1024-byte aligned: the
    layout a dot reads its B operand in from shared memory (wgmma), so that
    such a dot reads the stage itself.
  }];
  let arguments = (ins I64Attr:$bytes, I32Attr:$stages, UnitAttr:$swizzled);
  let results = (outs I32:$buffer);
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying a tile from global memory into a stage of a ring buffer";
  let description = [{
    Elements whose mask is false are zero in the buffer. Each thread copies
    the elements the pointers' layout gives it; the copy is complete for a
    thread and, by its barrier, for all threads after tile.async_wait.
  }];
  let arguments = (ins I32:$buffer, I32:$stage, Tile_PtrTile:$ptr,
                       Optional<TensorOf<[I1]>>:$mask);
  let assemblyFormat = [{
    $ptr `to` $buffer `[` $stage `]` (`,` `mask` $mask^ `:` type($mask))? attr-dict `:` type($ptr)
  }];
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit", [MemoryEffects<[MemWrite]>]> {
  let summary = "close the group of the async copies issued since the last commit";
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` copy groups are in flight, then synchronise";
  let description = [{
    After it, this thread's copies but the last `pending` groups have landed,
    and (by the workgroup barrier) every thread's have, and every thread is
    done reading what it read before it. It covers the copies into every ring
    buffer (`buffer` names the loop's first). With `pending` = 0 after a pipelined
    loop, the copies started for iterations past its end (masked off, they
    only write zeros) land before the buffer's bytes serve other buffers.
  }];
  let arguments = (ins I32:$buffer, I32Attr:$pending);
  let assemblyFormat = "$buffer attr-dict";
}

def Tile_StageWaitOp : Tile_Op<"stage_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the bulk copy into a stage of a ring buffer";
  let description = [{
    For a buffer with tile.stage_bulk, after the tile.async_wait of the same
    iteration: waits until the bulk copy into stage `stage` has landed,
    `phase` (0 or 1) being the parity of the copies into that stage so far
    (iteration i of a loop of S stages: (i / S) mod 2).
  }];
  let arguments = (ins I32:$buffer, I32:$stage, I32:$phase);
  let assemblyFormat = "$buffer `[` $stage `]` `phase` $phase attr-dict";
}

def Tile_StageReadOp : Tile_Op<"stage_read", [MemoryEffects<[MemRead]>]> {
  let summary = "read a stage of a ring buffer into registers";
  let description = [{
    The tile of stage `stage`, in the result's layout (which may differ from
    the layout the copy wrote in). Valid after the tile.async_wait that
    follows the stage's copy.
  }];
  let arguments = (ins I32:$buffer, I32:$stage);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$buffer `[` $stage `]` attr-dict `:` type($result)";
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure, SameOperandsAndResultShape,
    SameOperandsAndResultElementType]> {
  let summary = "redistribute a tile's elements over the threads (a new layout encoding)";
  let description = [{
    Produced by layout assignment where a value's layout is not the one its
    user needs. The GPU lowering moves registers within a thread when only
    the register bits differ, uses warp shuffles and selects when every
    element stays in its warp (planShuffles), and otherwise exchanges the
    elements through shared memory (the allocation pass gives it a
    `tile.shared_offset`).
  }];
  let arguments = (ins AnyStaticShapeTensor:$src);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
}

#endif // TILE_OPS_TD
