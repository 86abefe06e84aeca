//===- TileAttrs.td - tile layout encodings ----------------*- tablegen -*-===//
#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "tile/Dialect/TileBase.td"
include "mlir/IR/TensorEncoding.td"

def Tile_DistributedLayoutAttr : AttrDef<Tile_Dialect, "DistributedLayout", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "dist";
  let summary = "which register of which lane of which warp holds each element of a tile";
  let description = [{
    A tile's elements are numbered by their row-major linear index; every
    dimension has a power-of-two size, so the index is a bit string and a
    layout says where each of its bits comes from. `reg[i]` is the index bit
    selected by bit i of a thread's register number, `lane[j]` the one
    selected by bit j of the lane id and `warp[k]` by bit k of the warp id;
    -1 (lanes and warps only) means that bit of the thread id does not
    matter: the threads it tells apart hold copies of the same elements.
    Element(register r, lane l, warp w) = OR of (1 << reg[i]) over the set
    bits i of r, and likewise for l and w. Every index bit appears exactly
    once. For example, a 512-element tile over 4 warps of 32 lanes in runs
    of 4 elements is

        #tile.dist<reg = [0, 1], lane = [2, 3, 4, 5, 6], warp = [7, 8]>

    These are the bit-permutation subset of Triton's linear layouts: a
    blocked layout, its slices along reduced dimensions and the broadcasts
    back are all of this form.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$reg,
                        ArrayRefParameter<"int64_t">:$lane,
                        ArrayRefParameter<"int64_t">:$warp);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Number of registers a thread needs for the tile.
    int64_t getNumRegisters() const { return int64_t(1) << getReg().size(); }
    /// Linear index bits contributed by register number `r`.
    int64_t registerIndex(int64_t r) const;
    /// The register whose index bits are `index` (which holds only register bits).
    int64_t registerOf(int64_t index) const;
  }];
}

#endif // TILE_ATTRS_TD
