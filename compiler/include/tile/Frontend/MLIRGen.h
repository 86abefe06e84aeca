//===- MLIRGen.h - .tile AST to the tile dialect ----------------*- C++ -*-===//
#ifndef TILE_FRONTEND_MLIRGEN_H
#define TILE_FRONTEND_MLIRGEN_H

#include "tile/Frontend/AST.h"
#include "tile/Frontend/Diagnostics.h"
#include "tile/Tile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>

namespace tile {

/// What a caller needs to launch the generated kernel.
struct KernelSignature {
  std::string name;
  std::vector<ParamInfo> params;
  std::vector<Tunable> tunables;
  std::vector<std::string> tuneKey;
  /// The value of a `num_warps` compile-time parameter, 0 if none, and where
  /// the parameter is declared.
  int64_t numWarps = 0;
  llvm::SMLoc numWarpsLoc;
};

/// Type-checks kernel `kernelName` of `module` (the only kernel when empty)
/// instantiated with its defaults overridden by `defines`, and emits it as a
/// verified module holding one `func.func` marked `tile.kernel`. Reports
/// errors through `diags` and returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
generateKernel(const ast::Module &module, Diagnostics &diags, mlir::MLIRContext &context,
               llvm::StringRef kernelName,
               const std::map<std::string, std::string> &defines,
               KernelSignature *signature);

} // namespace tile

#endif // TILE_FRONTEND_MLIRGEN_H
