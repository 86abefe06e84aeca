//===- TileBase.td - tile dialect and types ----------------*- tablegen -*-===//
#ifndef TILE_BASE_TD
#define TILE_BASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tileir";
  let summary = "Target-neutral tiles: whole-block loads, stores, math and reductions";
  let description = [{
    One program instance of a kernel works on tiles: statically shaped
    `tensor` values whose elements are numbers or `!tile.ptr` pointers.
    Elementwise math uses the upstream `arith` and `math` ops on tensors;
    this dialect adds what tiles need beyond them: program ids, ranges,
    splats and broadcasts, pointer arithmetic, masked memory access and
    reductions.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

class Tile_Type<string name, string typeMnemonic> : TypeDef<Tile_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Pointer", "ptr"> {
  let summary = "pointer to global memory holding elements of one type";
  let parameters = (ins "Type":$pointee);
  let assemblyFormat = "`<` $pointee `>`";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Max", 1, "max">,
  I32EnumAttrCase<"Min", 2, "min">
]> {
  let cppNamespace = "::mlir::tileir";
}

def Tile_Ptr : Type<CPred<"::llvm::isa<::mlir::tileir::PointerType>($_self)">,
                    "tile pointer">;
def Tile_PtrTile : TensorOf<[Tile_Ptr]>;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTile]>;
def Tile_IntLike : AnyTypeOf<[AnySignlessInteger, TensorOf<[AnySignlessInteger]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, TensorOf<[I1]>]>;
def Tile_Value : AnyTypeOf<[AnyType]>;

#endif // TILE_BASE_TD
