//===- OptimizeModule.h - LLVM's optimisation of a GPU module ---*- C++ -*-===//
//
// What the NVIDIA and AMD emitters share before instruction selection: LLVM's
// -O pipeline for the target machine, optionally after LLVM's Scalarizer.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TARGETS_OPTIMIZEMODULE_H
#define TILE_TARGETS_OPTIMIZEMODULE_H

#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <string>

namespace mlir::tileir {

/// Runs LLVM's -O`optLevel` pipeline for `tm` on `module`. With `scalarize`
/// (and optLevel > 0) LLVM's Scalarizer first splits vector operations of 32
/// bits and wider into scalar ones, followed by InstCombine, so that -O
/// optimises and schedules the scalars one by one. Returns "" or the error.
std::string optimizeModule(llvm::Module &module, llvm::TargetMachine &tm, unsigned optLevel,
                           bool scalarize);

} // namespace mlir::tileir

#endif // TILE_TARGETS_OPTIMIZEMODULE_H
