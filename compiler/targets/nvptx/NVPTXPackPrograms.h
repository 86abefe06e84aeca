//===- NVPTXPackPrograms.h - several programs in one CTA --------*- C++ -*-===//
#ifndef TILE_TARGETS_NVPTX_NVPTXPACKPROGRAMS_H
#define TILE_TARGETS_NVPTX_NVPTXPACKPROGRAMS_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::tileir {

/// tile-nvptx-pack-programs: `programs` consecutive programs along axis 1 run
/// as one CTA (CompileOptions::programsPerCta; NVPTXPackPrograms.cpp). Runs
/// right after tile-to-gpu.
std::unique_ptr<Pass> createNVPTXPackProgramsPass(unsigned programs);

} // namespace mlir::tileir

#endif // TILE_TARGETS_NVPTX_NVPTXPACKPROGRAMS_H
